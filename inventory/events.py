"""Facts about a product's stock on its stream `stock-<sku>`, in the past tense.

Units on hand change only by `StockReceived`, `StockAdjusted` and `ReservationConfirmed`
(an order took them); a reservation sets units aside for one checkout until it is
confirmed or released. Available = on hand - reserved.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from eventlog.registry import EventType, describe


@dataclass(frozen=True, kw_only=True)
class StockEvent:
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1
    sku: str


@dataclass(frozen=True, kw_only=True)
class StockReceived(StockEvent):
    """Units arrived and are on hand."""

    TYPE = "StockReceived"
    quantity: int


@dataclass(frozen=True, kw_only=True)
class StockAdjusted(StockEvent):
    """A correction of the units on hand (a count, breakage), up or down, with its reason."""

    TYPE = "StockAdjusted"
    by: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class StockReserved(StockEvent):
    """Units set aside for one checkout (`reservation`), until it is confirmed or released, or `expires_at`."""

    TYPE = "StockReserved"
    reservation: str
    quantity: int
    expires_at: datetime


@dataclass(frozen=True, kw_only=True)
class ReservationReleased(StockEvent):
    """A reservation given back: its checkout failed, or it expired before its order was placed."""

    TYPE = "ReservationReleased"
    reservation: str
    quantity: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class ReservationConfirmed(StockEvent):
    """The order was placed: the reserved units leave the stock (in the transaction of `CheckedOut`)."""

    TYPE = "ReservationConfirmed"
    reservation: str
    quantity: int
    order_id: str


EVENT_CLASSES: dict[str, type[StockEvent]] = {
    cls.TYPE: cls for cls in (StockReceived, StockAdjusted, StockReserved, ReservationReleased, ReservationConfirmed)
}


def event_types() -> list[EventType]:
    """The registry entries for the stock streams (the event catalog is generated from these)."""
    return describe(EVENT_CLASSES.values(), category="stock")
