"""`order_history` rows for two hand-written orders, every column a literal.

`order_history` reads the cart's own stream for the owner at checkout, so the events
go through the real store here (both backends); only `position` comes from the store.
"""

from decimal import Decimal
from typing import Any

import pytest

from carts.events import CartEvent, CartOwnerChanged, CartStarted, CheckedOut, ItemAdded
from eventlog import codec, store
from eventlog.records import RecordedEvent
from projections import order_history
from projections.models import OrderHistory

from .recorded_events import at

pytestmark = pytest.mark.django_db

COF, KIT = "COF-001", "KIT-001"
H1_LINES = [
    {"sku": COF, "quantity": 3, "unit_price": "12.50", "line_total": "37.50"},
    {"sku": KIT, "quantity": 2, "unit_price": "24.00", "line_total": "48.00"},
]
# A sealed box as CheckedOut carries it (privacy/sealing.py): the view copies it, never opens it.
BOX = {"key_id": "k-42", "alg": "AES-256-GCM", "fields": ["address", "email", "name"], "nonce": "bm9uY2U=",
       "ciphertext": "c2VhbGVk"}  # fmt: skip
H2_LINES = [{"sku": KIT, "quantity": 1, "unit_price": "24.00", "line_total": "24.00"}]


def append(stream_id: str, *events: tuple[int, CartEvent]) -> list[RecordedEvent]:
    """Append (minute, event) pairs to a new stream; each happened `minute` minutes after T0."""
    new = [codec.to_new_event(event, metadata={}, occurred_at=at(minute)) for minute, event in events]
    store.append(stream_id, 0, new)
    return store.read_stream(stream_id)


def two_orders() -> list[RecordedEvent]:
    """h1: an anonymous cart that moves to user:42, checks out with a coupon, and moves on
    to user:43 afterwards (the order stays with user:42). h2: user:5, no coupon."""
    h1 = append(
        "cart-h1",
        (1, CartStarted(owner="anon:tok9")),
        (2, ItemAdded(sku=COF, quantity=3, unit_price=Decimal("12.50"))),
        (3, ItemAdded(sku=KIT, quantity=2, unit_price=Decimal("24.00"))),
        (4, CartOwnerChanged(from_owner="anon:tok9", to_owner="user:42")),
        (5, CheckedOut(
            order_id="ord-h1", lines=H1_LINES, subtotal=Decimal("85.50"), discount=Decimal("8.55"),
            total=Decimal("76.95"), coupon="WELCOME10", shipping=BOX,
        )),
        (6, CartOwnerChanged(from_owner="user:42", to_owner="user:43")),
    )  # fmt: skip
    h2 = append(
        "cart-h2",
        (7, CartStarted(owner="user:5")),
        (8, ItemAdded(sku=KIT, quantity=1, unit_price=Decimal("24.00"))),
        (9, CheckedOut(
            order_id="ord-h2", lines=H2_LINES, subtotal=Decimal("24.00"), discount=Decimal("0.00"),
            total=Decimal("24.00"), coupon=None,
        )),
    )  # fmt: skip
    return sorted(h1 + h2, key=lambda event: event.position)


def position_of(events: list[RecordedEvent], order_id: str) -> int:
    return next(e.position for e in events if e.type == "CheckedOut" and e.data["order_id"] == order_id)


def expected_rows(events: list[RecordedEvent]) -> list[dict[str, Any]]:
    return [
        {
            "order_id": "ord-h1",
            "account": "user:42",
            "cart_id": "h1",
            "lines": H1_LINES,
            "subtotal": Decimal("85.50"),
            "discount": Decimal("8.55"),
            "total": Decimal("76.95"),
            "coupon": "WELCOME10",
            "shipping": BOX,
            "placed_at": at(5),
            "position": position_of(events, "ord-h1"),
        },
        {
            "order_id": "ord-h2",
            "account": "user:5",
            "cart_id": "h2",
            "lines": H2_LINES,
            "subtotal": Decimal("24.00"),
            "discount": Decimal("0.00"),
            "total": Decimal("24.00"),
            "coupon": None,
            "shipping": None,
            "placed_at": at(9),
            "position": position_of(events, "ord-h2"),
        },
    ]


def order_rows() -> list[dict[str, Any]]:
    return [dict(row) for row in OrderHistory.objects.order_by("order_id").values()]


def test_order_history_rows_hold_each_order_under_its_owner_at_checkout() -> None:
    events = two_orders()

    order_history.apply(events)

    assert order_rows() == expected_rows(events)


def test_order_history_ignores_a_second_delivery_of_an_order() -> None:
    events = two_orders()

    order_history.apply(events)
    order_history.apply(events[::-1])

    assert order_rows() == expected_rows(events)
