"""Checkout (log in first; optional coupon), the confirmation, and "My orders".

"My orders" reads `order_history`, a view a consumer updates after the checkout
commits. So the checkout remembers, in the session, the log position of its
`CheckedOut` event, and "My orders" waits (briefly) until the view covers it:
the shopper always sees the order just placed (read your writes).
"""

from uuid import uuid4

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from carts import checkout as carts_checkout
from carts.decider import CartStatus
from carts.handler import Outcome
from claims import queries as claim_queries
from kernel.digits import is_number
from projections.models import CartView

from .. import current, queries
from ..forms import CheckoutForm
from ..methods import get_only, get_or_post
from ..sending import Refusal, attempt, context


@get_or_post
def checkout(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "shop/checkout_login.html")
    if request.method == "POST":
        # The cart named in the form, not the session's: it may have been checked
        # out in another tab meanwhile, and the command layer is the one to say so.
        return _place_order(request, CheckoutForm(request.POST))
    row = current.current_cart(request)
    if row is None or not row.lines:
        messages.info(request, "Your cart is empty; add something before checking out.")
        return redirect("shop:cart")
    initial = {"cart_id": row.cart_id, "version": row.version, "request_id": uuid4().hex}
    return _checkout_page(request, row, CheckoutForm(initial=initial))


def _place_order(request: HttpRequest, form: CheckoutForm) -> HttpResponse:
    row = queries.owned_cart(current.actor(request), form.data.get("cart_id", ""))
    if row is None:
        messages.error(request, "That cart is not yours or no longer exists. Here is your current cart.")
        return redirect("shop:cart")
    if not form.is_valid():
        return _checkout_page(request, row, form, status=400)
    data = form.cleaned_data
    ctx = context(request, expected_version=data["version"], idempotency_key=data["request_id"] or None)
    shipping = form.shipping()
    outcome = attempt(
        lambda: carts_checkout.place_order(ctx, data["cart_id"], data["coupon"] or None, shipping), data["cart_id"]
    )
    if isinstance(outcome, Refusal):
        return _refused(request, row, form, outcome)
    current.forget_cart(request)
    _remember_position(request, outcome)
    return redirect("shop:order", cart_id=outcome.state.cart_id)


# The session key of the newest position this shopper's "My orders" must cover.
ORDERS_POSITION = "orders_min_position"


def _remember_position(request: HttpRequest, outcome: Outcome) -> None:
    # A repeat appends nothing: the cart row's last position is then its CheckedOut event.
    row = queries.owned_cart(current.actor(request), outcome.state.cart_id)
    position = outcome.events[-1].position if outcome.events else (row.last_position if row else 0)
    request.session[ORDERS_POSITION] = max(position, request.session.get(ORDERS_POSITION, 0))


def _refused(request: HttpRequest, row: CartView, form: CheckoutForm, refusal: Refusal) -> HttpResponse:
    if refusal.kind == "invalid":
        form.add_error("coupon" if refusal.field == "coupon" else None, refusal.message)
        return _checkout_page(request, row, form, status=400)
    if refusal.kind == "stale":
        messages.warning(request, refusal.message)
        return redirect("shop:checkout")
    messages.error(request, refusal.message)
    current.forget_cart(request)
    return redirect("shop:cart")


def _checkout_page(request: HttpRequest, row: CartView, form: CheckoutForm, status: int = 200) -> HttpResponse:
    page = {"cart": row, "lines": queries.shown_lines(row.lines, open_cart=True), "form": form}
    if settings.DEMO:
        page["demo_coupons"] = queries.demo_coupons()
    return render(request, "shop/checkout.html", page, status=status)


@login_required
@get_only
def order(request: HttpRequest, cart_id: str) -> HttpResponse:
    row = queries.owned_cart(current.actor(request), cart_id)
    if row is None or row.status != CartStatus.CHECKED_OUT:
        raise Http404("No such order")
    page = {
        "cart": row,
        "lines": queries.shown_lines(row.lines),
        "min_position": row.last_position,
        "shipping": queries.order_shipping(cart_id),
    }
    return render(request, "shop/order.html", page)


@login_required
@get_only
def orders(request: HttpRequest) -> HttpResponse:
    wanted = max(_asked_position(request), request.session.get(ORDERS_POSITION, 0))
    covers = queries.orders_covering(wanted)
    page = {
        "covers": covers,
        "wanted": wanted,
        "behind": covers < wanted,
        "orders": queries.my_orders(request.user),  # type: ignore[arg-type]
        # The account's own history: the claim that made its username unique.
        "name_claim": claim_queries.username_claim_events(request.user.get_username()),
    }
    return render(request, "shop/orders.html", page)


def _asked_position(request: HttpRequest) -> int:
    """`?min_position=P` (the confirmation page's link); anything but a whole number asks for nothing."""
    text = request.GET.get("min_position", "")
    return int(text) if is_number(text) else 0
