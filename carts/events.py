"""Facts about a cart, in the past tense. Each is a frozen dataclass with a stable
`TYPE` name (what the log stores) and a `SCHEMA_VERSION`.

Money travels as `Decimal` here and as a decimal string in the log.
"""

from dataclasses import asdict, dataclass, fields
from decimal import Decimal
from typing import Any, ClassVar

from eventlog.registry import EventType, describe


@dataclass(frozen=True, kw_only=True)
class CartEvent:
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1

    def to_data(self) -> dict[str, Any]:
        return {k: _plain(v) for k, v in asdict(self).items()}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "CartEvent":
        return cls(**{f.name: data[f.name] for f in fields(cls)})


@dataclass(frozen=True, kw_only=True)
class CartStarted(CartEvent):
    """A new cart; `owner` is `user:<id>` or `anon:<session cart token>`."""

    TYPE = "CartStarted"
    owner: str


@dataclass(frozen=True, kw_only=True)
class ItemAdded(CartEvent):
    """`quantity` units of `sku` added, at the catalog price of that moment."""

    TYPE = "ItemAdded"
    sku: str
    quantity: int
    unit_price: Decimal

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "ItemAdded":
        return cls(sku=data["sku"], quantity=data["quantity"], unit_price=Decimal(data["unit_price"]))


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
    order_id: str
    lines: list[dict[str, Any]]
    subtotal: Decimal
    discount: Decimal
    total: Decimal
    coupon: str | None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "CheckedOut":
        total = Decimal(data["total"])
        return cls(
            order_id=data["order_id"],
            lines=data["lines"],
            subtotal=Decimal(data.get("subtotal", total)),
            discount=Decimal(data.get("discount", "0")),
            total=total,
            coupon=data.get("coupon"),
        )


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


EVENT_CLASSES: dict[str, type[CartEvent]] = {
    cls.TYPE: cls for cls in (CartStarted, ItemAdded, ItemQuantityChanged, ItemRemoved, CartOwnerChanged, CheckedOut)
}


def event_types() -> list[EventType]:
    """The registry entries for the cart streams (the event catalog is generated from these)."""
    return describe(EVENT_CLASSES.values(), category="cart")


def from_recorded(type_: str, data: dict[str, Any]) -> CartEvent | None:
    """The domain event for a stored one; None for types that do not shape a cart."""
    cls = EVENT_CLASSES.get(type_)
    return cls.from_data(data) if cls else None
