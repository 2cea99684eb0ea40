"""A rebuild's lean batches (rebuilds.reader) hold what `store.read_all` holds, and
`cart_view.apply_decoded` writes from them exactly the rows `cart_view.apply` writes.

Both backends. The reader is compared event by event with `read_all` over a shop's log
with an old-schema checkout in it (upcast on the way in) and an event of a type no
module registers; `apply_decoded` is compared with the hand-written rows of
test_projection_rows.
"""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import transaction

from eventlog import store
from eventlog.records import NewEvent, RecordedEvent
from projections import cart_view
from rebuilds.reader import LogEvent, Reader, decode, read_lean
from tests.log_helpers import wait_until_readable

from .rebuild_support import shop
from .test_projection_rows import CART_LOG, CART_ROWS, cart_rows


def lean(event: RecordedEvent) -> LogEvent:
    return LogEvent(event.position, event.stream_id, event.version, event.type, event.occurred_at, event.domain_event)


def as_read_all(event: RecordedEvent) -> tuple[object, ...]:
    return (event.position, event.stream_id, event.version, event.type, event.occurred_at, event.domain_event)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("batch", [1, 7, 1000])
def test_lean_batches_hold_what_read_all_holds(seeded_catalog: None, batch: int) -> None:
    shop(12, seed=3)
    cart_id = shop(1, seed=4)[0]
    with transaction.atomic():
        old_checkout = {"order_id": "ord-old", "lines": [], "total": "5.00"}  # schema 1: no subtotal, no shipping
        version = store.stream_version(f"cart-{cart_id}")
        at = datetime(2026, 1, 2, tzinfo=UTC)
        store.append(
            f"cart-{cart_id}",
            version,
            [
                NewEvent(type="CheckedOut", schema_version=1, data=old_checkout, occurred_at=at),
                NewEvent(type="SomethingUnregistered", data={"x": 1}, occurred_at=at),
            ],
        )
        store.append("other-1", 0, [NewEvent(type="SomethingUnregistered", data={}, occurred_at=at)])
    wait_until_readable()

    for categories in [("cart",), ()]:
        expected = [as_read_all(e) for e in store.read_all(0, 10_000, categories=categories or None)]
        got, after = [], 0
        while chunk := read_lean(after, batch, categories):
            got += chunk
            after = chunk[-1].position
        assert [tuple(event) for event in got] == expected
    upcast = [event.domain_event for event in got if event.type == "CheckedOut" and event.stream_id.endswith(cart_id)]
    assert upcast[-1].subtotal == Decimal("5.00")  # type: ignore[union-attr]
    assert [event.domain_event for event in got if event.type == "SomethingUnregistered"] == [None, None]
    with Reader(("cart",), 5, lean=True) as reader:
        assert [tuple(e) for e in decode(reader.read(0))] == expected_cart_head(5)


def expected_cart_head(count: int) -> list[tuple[object, ...]]:
    return [as_read_all(e) for e in store.read_all(0, count, categories=["cart"])]


@pytest.mark.django_db
@pytest.mark.parametrize("bulk_rows", [cart_view.BULK_ROWS, 1])
def test_apply_decoded_writes_the_rows_apply_writes(monkeypatch: pytest.MonkeyPatch, bulk_rows: int) -> None:
    monkeypatch.setattr(cart_view, "BULK_ROWS", bulk_rows)  # 1: the bulk upsert (PostgreSQL) as in a rebuild
    cart_view.apply_decoded([lean(event) for event in CART_LOG])

    assert cart_rows() == CART_ROWS


@pytest.mark.django_db
def test_apply_decoded_event_by_event_and_delivered_again() -> None:
    for event in CART_LOG:
        cart_view.apply_decoded([lean(event)])
    cart_view.apply_decoded([lean(event) for event in CART_LOG[3:]])  # continues from rows, skips what they hold
    cart_view.apply_decoded([lean(event) for event in CART_LOG[:3]])  # a row never moves back

    assert cart_rows() == CART_ROWS
