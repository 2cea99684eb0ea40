"""Turn a caller's request into a cart command and run it through the handler.

This is the entrance for both the REST API and the web shop: they pass what the
user typed; the time, the product as the catalog knows it now and a fresh
order id are filled in here, so `decide` stays pure. `at` (default: now) lets the
shopper simulator run commands at simulated event times.
"""

from datetime import datetime
from uuid import uuid4

from django.utils import timezone

from catalog.queries import product_snapshot
from catalog.queries import withdrawn as withdrawn_skus
from kernel.principal import Principal
from privacy.personal import seal_for

from . import commands as c
from .handler import Context, Outcome, handle
from .shipping import Shipping


def start_cart(context: Context, cart_id: str | None = None, *, at: datetime | None = None) -> Outcome:
    return handle(
        c.StartCart(cart_id=cart_id or str(uuid4()), at=at or timezone.now(), owner=str(context.actor)), context
    )


def add_to_cart(context: Context, cart_id: str, sku: str, quantity: int, *, at: datetime | None = None) -> Outcome:
    command = c.AddToCart(
        cart_id=cart_id, at=at or timezone.now(), sku=sku, quantity=quantity, product=product_snapshot(sku)
    )
    return handle(command, context)


def update_quantity(context: Context, cart_id: str, sku: str, quantity: int, *, at: datetime | None = None) -> Outcome:
    return handle(c.UpdateCartQuantity(cart_id=cart_id, at=at or timezone.now(), sku=sku, quantity=quantity), context)


def remove_from_cart(context: Context, cart_id: str, sku: str, *, at: datetime | None = None) -> Outcome:
    return handle(c.RemoveFromCart(cart_id=cart_id, at=at or timezone.now(), sku=sku), context)


def change_owner(context: Context, cart_id: str, new_owner: Principal) -> Outcome:
    """Move an anonymous visitor's cart to the account they just signed in with."""
    return handle(c.ChangeCartOwner(cart_id=cart_id, at=timezone.now(), new_owner=str(new_owner)), context)


def checkout(
    context: Context,
    cart_id: str,
    discount: c.Discount | None = None,
    *,
    at: datetime | None = None,
    shipping: Shipping | None = None,
    withdrawn: frozenset[str] | None = None,
) -> Outcome:
    return handle(checkout_command(context, cart_id, discount, at=at, shipping=shipping, withdrawn=withdrawn), context)


def checkout_command(
    context: Context,
    cart_id: str,
    discount: c.Discount | None = None,
    *,
    at: datetime | None = None,
    shipping: Shipping | None = None,
    withdrawn: frozenset[str] | None = None,
) -> c.Checkout:
    """Shipping details are sealed here, for the person checking out: the command never holds them in clear.
    `withdrawn`: the catalog's withdrawn SKUs if the caller read them already (None: read them now)."""
    sealed = seal_for(str(context.actor), shipping.fields()) if shipping else None
    return c.Checkout(
        cart_id=cart_id,
        at=at or timezone.now(),
        order_id=str(uuid4()),
        discount=discount,
        shipping=sealed,
        withdrawn=withdrawn_skus() if withdrawn is None else withdrawn,
    )
