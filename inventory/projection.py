"""`stock_levels`: units on hand, reserved and available per product, a projection of the stock streams.

Applied inline by the stock handler, in the transaction of the append, so the shop
and the API show what the log says the moment it says it. Each row keeps the
version of its stream it reflects, and an event at or below it changes nothing:
applying an event twice is harmless, as for every view.
"""

from collections.abc import Sequence

from django.db import connections

from eventlog.records import RecordedEvent

from . import events as e
from .streams import CATEGORY

NAME = "stock_levels"
VERSION = 1
TABLE = "inventory_stock_level"
KEY = "sku"
CATEGORIES: tuple[str, ...] = (CATEGORY,)


def apply(
    events: Sequence[RecordedEvent],
    table: str = TABLE,
    *,
    using: str = "default",
) -> None:
    with connections[using].cursor() as cursor:
        for record in events:
            event = record.domain_event
            if not isinstance(event, e.StockEvent):
                continue
            on_hand, reserved = deltas(event)
            cursor.execute(
                f"INSERT INTO {table} (sku, on_hand, reserved, available, version) VALUES (%s, 0, 0, 0, 0)"
                " ON CONFLICT (sku) DO NOTHING",
                [event.sku],
            )
            cursor.execute(
                f"UPDATE {table} SET on_hand = on_hand + %s, reserved = reserved + %s, available = available + %s,"
                " version = %s WHERE sku = %s AND version < %s",
                [on_hand, reserved, on_hand - reserved, record.version, event.sku, record.version],
            )


def deltas(event: e.StockEvent) -> tuple[int, int]:
    """How an event moves (on hand, reserved)."""
    match event:
        case e.StockReceived(quantity=quantity):
            return quantity, 0
        case e.StockAdjusted(by=by):
            return by, 0
        case e.StockReserved(quantity=quantity):
            return 0, quantity
        case e.ReservationReleased(quantity=quantity):
            return 0, -quantity
        case e.ReservationConfirmed(quantity=quantity):
            return -quantity, -quantity
    return 0, 0
