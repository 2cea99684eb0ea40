"""The one event codec: domain events to the log's (type, schema_version, data) and back."""

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar
from uuid import uuid4

import pytest

from carts import events as e
from claims.events import ClaimAccepted, ClaimRequested
from eventlog import codec, registry
from eventlog.records import RecordedEvent

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
CHECKED_OUT = e.CheckedOut(
    order_id="o1",
    lines=[{"sku": "COF-001", "quantity": 2, "unit_price": "12.50", "line_total": "25.00"}],
    subtotal=Decimal("25.00"),
    discount=Decimal("2.50"),
    total=Decimal("22.50"),
    coupon="WELCOME10",
)


@dataclass(frozen=True, kw_only=True)
class Rescheduled:
    """A test-only event with a datetime and an optional amount, at schema version 2."""

    TYPE: ClassVar[str] = "CodecRescheduled"
    SCHEMA_VERSION: ClassVar[int] = 2
    at: datetime
    fee: Decimal | None


@pytest.fixture
def rescheduled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registered for one test; v1 named the time `when`."""
    monkeypatch.setattr(registry, "_types", dict(registry._types))
    upcasters: dict[type, dict[int, registry.Upcaster]] = {Rescheduled: {1: lambda d: {"at": d["when"], "fee": None}}}
    [event_type] = registry.describe([Rescheduled], category="test", upcasters=upcasters)
    registry.register(event_type)


def recorded(type_: str, data: dict[str, Any], schema_version: int = 1) -> RecordedEvent:
    return RecordedEvent(
        position=1, event_id=uuid4(), stream_id="cart-1", version=1, type=type_, schema_version=schema_version,
        data=data, metadata={}, occurred_at=NOW, recorded_at=NOW,
    )  # fmt: skip


def test_money_is_stored_as_a_decimal_string_and_read_back_as_decimal() -> None:
    type_, schema_version, data = codec.encode(CHECKED_OUT)
    assert (type_, schema_version) == ("CheckedOut", 2)
    assert (data["subtotal"], data["discount"], data["total"], data["coupon"]) == (
        "25.00",
        "2.50",
        "22.50",
        "WELCOME10",
    )
    decoded = codec.decode_stored(type_, schema_version, data)
    assert decoded == CHECKED_OUT and isinstance(decoded, e.CheckedOut)
    assert isinstance(decoded.total, Decimal) and str(decoded.total) == "22.50"


def test_every_registered_class_comes_back_as_itself() -> None:
    events: list[codec.DomainEvent] = [
        e.CartStarted(owner="user:1"),
        e.ItemAdded(sku="COF-001", quantity=2, unit_price=Decimal("12.50")),
        e.ItemQuantityChanged(sku="COF-001", from_quantity=2, to_quantity=3),
        e.ItemRemoved(sku="COF-001"),
        e.CartOwnerChanged(from_owner="anon:x", to_owner="user:1"),
        CHECKED_OUT,
        ClaimRequested(claim_id="c1", kind="username", key="ada", claimant="anon:x"),
        ClaimAccepted(claim_id="c1"),
    ]
    for event in events:
        assert codec.decode_stored(*codec.encode(event)) == event


def test_a_checkout_written_before_discounts_reads_with_no_discount_and_the_total_as_subtotal() -> None:
    old = {"order_id": "o1", "lines": [], "total": "25.00"}
    event = codec.decode(recorded("CheckedOut", old))
    assert event == e.CheckedOut(
        order_id="o1", lines=[], subtotal=Decimal("25.00"), discount=Decimal("0"), total=Decimal("25.00"), coupon=None
    )


def test_a_missing_field_with_a_default_takes_it() -> None:
    assert codec.decode(recorded("ClaimAccepted", {"claim_id": "c1"})) == ClaimAccepted(claim_id="c1")


def test_a_type_nobody_registered_decodes_to_none() -> None:
    assert codec.decode(recorded("SomethingElse", {"x": 1})) is None


def test_a_recorded_event_gives_its_domain_event_for_match() -> None:
    record = recorded("ItemAdded", {"sku": "COF-001", "quantity": 2, "unit_price": "12.50"})
    match record.domain_event:
        case e.ItemAdded(sku=sku, unit_price=price):
            assert (sku, price) == ("COF-001", Decimal("12.50"))
        case other:
            raise AssertionError(other)
    assert record.domain_event is record.domain_event  # decoded once


def test_datetimes_are_stored_as_iso_text_and_older_schemas_are_upcast(rescheduled: None) -> None:
    event = Rescheduled(at=NOW, fee=Decimal("1.50"))
    assert codec.encode(event) == ("CodecRescheduled", 2, {"at": "2026-01-01T12:00:00+00:00", "fee": "1.50"})
    assert codec.decode_stored(*codec.encode(event)) == event
    assert codec.decode_stored("CodecRescheduled", 1, {"when": NOW.isoformat()}) == Rescheduled(at=NOW, fee=None)


def test_a_new_event_carries_the_encoding_and_the_envelope() -> None:
    new = codec.to_new_event(e.ItemRemoved(sku="COF-001"), metadata={"actor": "user:1"}, occurred_at=NOW)
    assert (new.type, new.schema_version, new.data, new.metadata, new.occurred_at) == (
        "ItemRemoved", 1, {"sku": "COF-001"}, {"actor": "user:1"}, NOW,
    )  # fmt: skip


def test_registering_a_new_version_without_its_upcaster_is_refused() -> None:
    with pytest.raises(ValueError, match="no upcaster"):
        registry.register(registry.EventType(name="ContractBroken", schema_version=3, upcasters={1: dict}))


@dataclass(frozen=True, kw_only=True)
class Shipped:
    """A test-only event at schema version 1 whose `parcels` field was added without a new version."""

    TYPE: ClassVar[str] = "CodecShipped"
    SCHEMA_VERSION: ClassVar[int] = 1
    items: list[str]
    parcels: int


def test_a_field_added_without_a_new_version_is_filled_by_the_backfill_from_the_stored_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A backfill works out what older writers of the same version left out from what they did
    write (here one parcel per item); data that has the field keeps it."""
    monkeypatch.setattr(registry, "_types", dict(registry._types))
    backfills: dict[type, registry.Upcaster] = {Shipped: lambda d: {"parcels": len(d["items"]), **d}}
    [event_type] = registry.describe([Shipped], category="test", backfills=backfills)
    registry.register(event_type)
    older = codec.decode(recorded("CodecShipped", {"items": ["a", "b", "c"]}))
    newer = codec.decode(recorded("CodecShipped", {"items": ["a", "b", "c"], "parcels": 1}))
    assert older == Shipped(items=["a", "b", "c"], parcels=3)
    assert newer == Shipped(items=["a", "b", "c"], parcels=1)
