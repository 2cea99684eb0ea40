"""What if? A command tried against a cart as it was at some version, and never appended.

`carts.decider.decide(state, command)` is pure: given the state folded up to a
version and a command, it returns the events it would append, or raises the
refusal. The history page calls it alone, with no handler, no transaction and
no store, so a learner can ask "what if I had removed that line at version 2?"
and the log stays exactly as it is.
"""

import json
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

from django.http import QueryDict
from django.utils import timezone

from carts import commands as c
from carts.checkout import find_coupon
from carts.decider import CartState, decide
from catalog.queries import product_snapshot, withdrawn
from eventlog import codec
from kernel.digits import is_number
from kernel.errors import DomainError

ACTIONS = {"add": "Add to cart", "quantity": "Change quantity", "remove": "Remove", "checkout": "Check out"}


@dataclass(frozen=True, kw_only=True)
class ShownEvent:
    type: str
    data: str  # as the log would store it, pretty-printed


@dataclass(frozen=True, kw_only=True)
class Tried:
    action: str
    events: list[ShownEvent] = field(default_factory=list)
    refused: str | None = None  # the refusal's title
    reason: str | None = None  # the refusal's sentence


def tried(state: CartState, query: QueryDict) -> Tried | None:
    """What `decide` says to the command in `query` (?try=add|quantity|remove|checkout), or None if none."""
    action = query.get("try", "")
    if action not in ACTIONS:
        return None
    try:
        events = decide(state, _command(state.cart_id, action, query))
    except DomainError as error:
        return Tried(action=ACTIONS[action], refused=error.title, reason=error.detail)
    return Tried(action=ACTIONS[action], events=[_shown(event) for event in events])


def _command(cart_id: str, action: str, query: QueryDict) -> c.CartCommand:
    # Completed as carts.services completes it (the time, the product now, a fresh order id).
    at, sku = timezone.now(), query.get("sku", "").strip()
    if action == "add":
        return c.AddToCart(cart_id=cart_id, at=at, sku=sku, quantity=_quantity(query), product=product_snapshot(sku))
    if action == "quantity":
        return c.UpdateCartQuantity(cart_id=cart_id, at=at, sku=sku, quantity=_quantity(query))
    if action == "remove":
        return c.RemoveFromCart(cart_id=cart_id, at=at, sku=sku)
    code = query.get("coupon", "").strip()
    # A one-time coupon is claimed before a real checkout; here it is taken as if its claim were accepted.
    discount = c.Discount(code=(found := find_coupon(code)).code, percent=found.percent) if code else None
    return c.Checkout(cart_id=cart_id, at=at, order_id=str(uuid4()), discount=discount, withdrawn=withdrawn())


def _quantity(query: QueryDict) -> Any:
    """A whole number, or the text as typed: the decider refuses what is not a whole number."""
    text = query.get("quantity", "").strip()
    return int(text) if is_number(text, max_digits=6) else text


def _shown(event: Any) -> ShownEvent:
    type_, _, data = codec.encode(event)
    return ShownEvent(type=type_, data=json.dumps(data, indent=1, sort_keys=True, default=str))
