"""Facts about a cart, in the past tense. Each is a frozen dataclass with a stable
`TYPE` name (what the log stores) and a `SCHEMA_VERSION`.

Money travels as `Decimal` here and as a decimal string in the log
(`eventlog.codec` does both ways, for every domain).
"""

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from eventlog.registry import Data, EventType, describe


@dataclass(frozen=True, kw_only=True)
class CartEvent:
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1


@dataclass(frozen=True, kw_only=True)
class CartStarted(CartEvent):
    """A new cart; `owner` is `user:<id>` or `anon:<session cart token>`."""

    TYPE = "CartStarted"
    owner: str


@dataclass(frozen=True, kw_only=True)
class ItemAdded(CartEvent):
    """`quantity` units of `sku` added at the catalog price of that moment, which its whole line takes."""

    TYPE = "ItemAdded"
    sku: str
    quantity: int
    unit_price: Decimal


@dataclass(frozen=True, kw_only=True)
class ItemQuantityChanged(CartEvent):
    """A line's quantity set to a new value (never 0: that is ItemRemoved)."""

    TYPE = "ItemQuantityChanged"
    sku: str
    from_quantity: int
    to_quantity: int


@dataclass(frozen=True, kw_only=True)
class ItemRemoved(CartEvent):
    """A line taken out of the cart."""

    TYPE = "ItemRemoved"
    sku: str


@dataclass(frozen=True, kw_only=True)
class CartOwnerChanged(CartEvent):
    """An anonymous visitor's cart moved to the account they signed up or logged in with."""

    TYPE = "CartOwnerChanged"
    from_owner: str
    to_owner: str


@dataclass(frozen=True, kw_only=True)
class CheckedOut(CartEvent):
    """The order was placed: the lines and prices are final, the cart is closed."""

    TYPE = "CheckedOut"
    SCHEMA_VERSION = 2
    order_id: str
    lines: list[dict[str, Any]]
    subtotal: Decimal
    # Checkouts written before coupons carry neither field: no discount, no coupon.
    discount: Decimal = Decimal("0")
    total: Decimal
    coupon: str | None = None
    # Version 2: where the order goes, sealed for the person who placed it (privacy/sealing.py).
    shipping: dict[str, Any] | None = None


def _subtotal_was_the_total(data: Data) -> Data:
    """Checkouts written before discounts have no `subtotal`: it equalled the total."""
    return data if "subtotal" in data else {**data, "subtotal": data["total"]}


def _checked_out_v1_to_v2(data: Data) -> Data:
    """Version 1 had no shipping details: none were given."""
    return {**_subtotal_was_the_total(data), "shipping": None}


EVENT_CLASSES: dict[str, type[CartEvent]] = {
    cls.TYPE: cls for cls in (CartStarted, ItemAdded, ItemQuantityChanged, ItemRemoved, CartOwnerChanged, CheckedOut)
}


def event_types() -> list[EventType]:
    """The registry entries for the cart streams (the event catalog is generated from these)."""
    return describe(EVENT_CLASSES.values(), category="cart", upcasters={CheckedOut: {1: _checked_out_v1_to_v2}})
