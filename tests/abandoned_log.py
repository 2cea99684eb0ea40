"""A shop's log whose event times are out of order, and what the abandoned-cart rule makes of it.

Times are minutes after T0; the rule in these tests: abandoned after 30 minutes of quiet.
Event 13 is a straggler: cart A's event of minute 29, recorded after B's of minute 40
(11 minutes late). The expectations below are written by hand from the rule's text
(docs/abandoned-carts.md), not computed by the code under test.
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from uuid import uuid4

from carts import events as e
from carts.streams import stream_id
from eventlog import codec
from eventlog.records import NewEvent, RecordedEvent

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CARTS = {name: f"00000000-0000-4000-8000-00000000000{i}" for i, name in enumerate("ABCDE", start=1)}
P = Decimal


def minute(m: int) -> datetime:
    return T0 + timedelta(minutes=m)


# (cart, event, minute of its event time), in log order: position = index + 1.
LOG: list[tuple[str, e.CartEvent, int]] = [
    ("A", e.CartStarted(owner="user:1"), 0),
    ("A", e.ItemAdded(sku="COF-001", quantity=2, unit_price=P("10.00")), 1),
    ("B", e.CartStarted(owner="user:2"), 2),
    ("B", e.ItemAdded(sku="TEA-001", quantity=1, unit_price=P("5.50")), 3),
    ("C", e.CartStarted(owner="user:3"), 5),
    ("C", e.ItemAdded(sku="MUG-001", quantity=1, unit_price=P("12.00")), 6),
    ("C", e.CheckedOut(order_id="o-1", lines=[], subtotal=P("12.00"), total=P("12.00")), 8),
    ("D", e.CartStarted(owner="user:4"), 20),
    ("D", e.ItemAdded(sku="COF-001", quantity=1, unit_price=P("10.00")), 21),
    ("E", e.CartStarted(owner="user:5"), 30),
    ("E", e.ItemAdded(sku="TEA-001", quantity=2, unit_price=P("5.50")), 30),
    ("B", e.ItemQuantityChanged(sku="TEA-001", from_quantity=1, to_quantity=3), 40),
    ("A", e.ItemAdded(sku="COF-001", quantity=1, unit_price=P("10.00")), 29),
    ("E", e.ItemRemoved(sku="TEA-001"), 45),
    ("D", e.ItemAdded(sku="MUG-001", quantity=1, unit_price=P("12.00")), 70),
]

# After all 15 events: the latest event time is minute 70. With 5 minutes of lateness the
# watermark is minute 65, so a cart is abandoned if its last activity is at minute 35 or before.
# A: last activity 29 (the straggler), 3 x COF-001 at 10.00 -> abandoned, 30.00.
# B: came back at 40 after 37 quiet minutes (a recovery); 40 > 35 -> not abandoned.
# C: checked out. D: came back at 70 after 49 quiet minutes (a recovery). E: emptied.
ABANDONED_AT_THE_END = [("A", P("30.00"), minute(29))]
RECOVERED_AT_THE_END = 2


def new_events(cart: str) -> list[tuple[int, NewEvent]]:
    """Cart `cart`'s events as records to append, each with its log index."""
    return [
        (i, codec.to_new_event(event, metadata={}, occurred_at=minute(m)))
        for i, (name, event, m) in enumerate(LOG)
        if name == cart
    ]


def recorded() -> list[RecordedEvent]:
    """The log as a consumer reads it: positions 1..15, each cart's versions 1, 2, ..."""
    versions: dict[str, int] = {}
    out = []
    for position, (name, event, m) in enumerate(LOG, start=1):
        versions[name] = versions.get(name, 0) + 1
        type_, schema_version, data = codec.encode(event)
        out.append(
            RecordedEvent(
                position=position, event_id=uuid4(), stream_id=stream_id(CARTS[name]), version=versions[name],
                type=type_, schema_version=schema_version, data=data, metadata={},
                occurred_at=minute(m), recorded_at=minute(70),
            )
        )  # fmt: skip
    return out
