"""The cart page and its commands: Update a quantity, Remove a line, switch carts.

Each line's form carries the cart version the shopper saw (If-Match, in effect),
so a change made meanwhile in another tab is reported instead of overwritten.
"""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from carts import services
from carts.decider import CartStatus
from carts.handler import Outcome
from catalog.queries import product_names

from .. import current, queries
from ..forms import CartLineForm, CartVersionForm
from ..methods import get_only, post_only
from ..sending import Refusal, attempt, context


@get_only
def cart(request: HttpRequest) -> HttpResponse:
    return cart_page(request)


def cart_page(request: HttpRequest, line_errors: dict[str, str] | None = None, status: int = 200) -> HttpResponse:
    row = current.current_cart(request)
    owner = current.actor(request) if request.user.is_authenticated else None
    page = {
        "cart": row,
        "lines": queries.shown_lines(row.lines, open_cart=True) if row else [],
        "line_errors": line_errors or {},
        "other_carts": queries.other_open_carts(owner, row.cart_id if row else None) if owner else [],
    }
    return render(request, "shop/cart.html", page, status=status)


@post_only
def update(request: HttpRequest, sku: str) -> HttpResponse:
    form = CartLineForm(request.POST)
    if not form.is_valid():
        return cart_page(request, {sku: _first_error(form)}, status=400)
    data = form.cleaned_data
    ctx = context(request, expected_version=data["version"])
    quantity = data["quantity"]
    outcome = attempt(lambda: services.update_quantity(ctx, data["cart_id"], sku, quantity), data["cart_id"])
    return _respond(request, sku, outcome, quantity=quantity)


@post_only
def remove(request: HttpRequest, sku: str) -> HttpResponse:
    form = CartVersionForm(request.POST)
    if not form.is_valid():
        return redirect("shop:cart")
    data = form.cleaned_data
    ctx = context(request, expected_version=data["version"])
    outcome = attempt(lambda: services.remove_from_cart(ctx, data["cart_id"], sku), data["cart_id"])
    return _respond(request, sku, outcome, quantity=0)


@post_only
def switch(request: HttpRequest) -> HttpResponse:
    """Make another of the account's open carts the current one (after a log-in kept two)."""
    cart_id = request.POST.get("cart_id", "")
    row = queries.owned_cart(current.actor(request), cart_id)
    if row is not None and row.status == CartStatus.OPEN:
        current.remember_cart(request, cart_id)
        messages.info(request, "Switched carts. Your other cart is kept too.")
    return redirect("shop:cart")


# A message tagged FOCUS takes the keyboard focus when the cart is drawn (autofocus, which htmx
# honours after a swap too): the line whose button had it is gone, and without this the focus
# fell back to the top of the page, and a screen reader said nothing of what happened.
FOCUS = "focus"


def _respond(request: HttpRequest, sku: str, outcome: Outcome | Refusal, quantity: int) -> HttpResponse:
    """The cart again, with what happened to the line (`quantity` 0: it was removed) or why not."""
    if not isinstance(outcome, Refusal):
        name = product_names([sku])[sku]
        if quantity == 0:
            messages.success(request, f"Removed {name} from your cart.", extra_tags=FOCUS)
        else:  # said with htmx too (the page's live region, static/shop/shop.js): the line itself looks the same
            messages.success(request, f"Quantity of {name} set to {quantity}.")
        return redirect("shop:cart")
    if outcome.kind == "invalid":
        return cart_page(request, {sku: outcome.message}, status=400)
    if outcome.kind == "stale":
        messages.warning(request, outcome.message, extra_tags=FOCUS)
    else:
        messages.error(request, outcome.message, extra_tags=FOCUS)
        current.forget_cart(request)
    return redirect("shop:cart")


def _first_error(form: CartLineForm) -> str:
    return str(next(iter(form.errors.values()))[0]) if form.errors else "Please check this line."
