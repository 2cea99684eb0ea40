"""What the shop's pages read: the catalog, a cart's lines with product names, and
an account's orders. Reads only; every write goes through carts.services.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser

from accounts.services import principal
from analytics import queries as analytics_queries
from carts import streams
from carts.commands import Discount
from carts.decider import CartStatus
from carts.events import CheckedOut
from catalog import search
from catalog.models import Coupon, Product
from catalog.queries import product_names, withdrawn
from consumers import coverage
from eventlog import store
from inventory.services import available
from kernel.principal import Principal
from privacy.personal import Revealer, reveal
from projections import order_history
from projections.models import CartView, OrderHistory


@dataclass(frozen=True, kw_only=True)
class ShownLine:
    sku: str
    name: str
    quantity: int
    unit_price: Decimal
    line_total: Decimal
    withdrawn: bool = False  # an open cart's line the catalog no longer sells (its checkout is refused)


def categories() -> list[str]:
    return list(Product.objects.filter(active=True).order_by("category").values_list("category", flat=True).distinct())


def products(search_text: str = "", category: str = "") -> list[Product]:
    """A search ranks by the index derived from the product streams (a shopper may type a
    name, a word of the description, or a SKU from a receipt: "cof-001", "COF"); else by category."""
    if search_text:
        return with_stock(search.matching_products(search_text, category=category))
    found = Product.objects.filter(active=True)
    if category:
        found = found.filter(category=category)
    return with_stock(list(found.order_by("category", "name")))


LOW_STOCK = 5  # at or below this many units the shop says "Only N left"


def with_stock(products: list[Product]) -> list[Product]:
    """Each product with `stock`: units available now, or None (sold without limit: no stock stream)."""
    units = available(p.sku for p in products)
    for product in products:
        product.stock = units.get(product.sku)  # type: ignore[attr-defined]  # shown, never saved
    return products


def demo_coupons() -> list[Coupon]:
    """The active coupons a checkout can apply, for a demo's checkout page (settings.DEMO)."""
    usable = (Discount.MIN_PERCENT, Discount.MAX_PERCENT)  # what a checkout applies (carts/commands.py)
    return list(Coupon.objects.filter(active=True, percent__range=usable).order_by("percent", "code"))


def also_bought(sku: str) -> list[dict[str, Any]]:
    """Recommendations, when the analytics view has any (an empty list hides the section)."""
    return analytics_queries.also_bought(sku)


def shown_lines(lines: Iterable[Any], *, open_cart: bool = False) -> list[ShownLine]:
    """Cart lines (dicts from cart_view or decider `Line`s) with the product's name; for an
    `open_cart`, whether the catalog still sells each (a placed order's lines are what was sold)."""
    raw = [line if isinstance(line, dict) else vars(line) for line in lines]
    names = product_names([line["sku"] for line in raw])
    gone = withdrawn() if open_cart and raw else frozenset()
    return [_shown(line, names[line["sku"]], line["sku"] in gone) for line in raw]


def _shown(line: dict[str, Any], name: str, gone: bool) -> ShownLine:
    price = Decimal(str(line["unit_price"]))
    quantity = int(line["quantity"])
    return ShownLine(
        sku=line["sku"], name=name, quantity=quantity, unit_price=price, line_total=price * quantity, withdrawn=gone
    )


@dataclass(frozen=True, kw_only=True)
class ShownOrder:
    cart_id: str
    order_id: str
    item_count: int
    total: Decimal
    updated_at: Any  # when the order was placed (event time)
    shipping: dict[str, str] | None = None  # opened for its owner; `[erased]` once forgotten


def my_orders(user: AbstractBaseUser) -> list[ShownOrder]:
    """The account's orders, newest first, from the `order_history` projection.

    It is built by a consumer, so an order placed a moment ago appears only once
    the consumer has applied it: wait with `orders_covering` first."""
    rows = OrderHistory.objects.filter(account=str(principal(user))).order_by("-placed_at")
    reveal = Revealer()
    return [
        ShownOrder(
            cart_id=row.cart_id,
            order_id=row.order_id,
            item_count=sum(int(line["quantity"]) for line in row.lines),
            total=row.total,
            updated_at=row.placed_at,
            shipping=reveal(row.shipping),
        )
        for row in rows
    ]


def order_shipping(cart_id: str) -> dict[str, str] | None:
    """The shipping details of a checked-out cart, from its own stream, opened for its owner."""
    for event in store.read_stream(streams.stream_id(cart_id)):
        if isinstance(checked_out := event.domain_event, CheckedOut):
            return reveal(checked_out.shipping)
    return None


def orders_covering(position: int) -> int:
    """Wait (at most MIN_POSITION_WAIT_SECONDS) until `order_history` covers `position`;
    the position it covers then (below `position` if it did not get there in time)."""
    read = coverage.reader(order_history.NAME)
    return coverage.wait_for(read, position, settings.MIN_POSITION_WAIT_SECONDS)


def owned_cart(owner: Principal, cart_id: str) -> CartView | None:
    return CartView.objects.filter(cart_id=cart_id, owner=str(owner)).first()


def other_open_carts(owner: Principal, except_cart_id: str | None) -> list[CartView]:
    rows = CartView.objects.filter(owner=str(owner), status=CartStatus.OPEN, item_count__gt=0).exclude(
        cart_id=except_cart_id or ""
    )
    return list(rows.order_by("-updated_at"))
