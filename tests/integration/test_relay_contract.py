"""What consumers receive from the relay, byte for byte: the key, value and headers of each event.

The relay builds its messages from rows as read (`relay.contract.messages` over MESSAGE_COLUMNS),
not from RecordedEvents, and puts the stored documents into the value as PostgreSQL returns them
(jsonb's text). The pinned message below is the contract; the log tests hold the rows' messages
to `to_message` of what `read_all` returns, and what a consumer decodes to the event `read_all`
returns, on the backend the suite runs on (PostgreSQL or SQLite), for events that test the
encoding's corners.
"""

import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import UUID

import pytest
from django.db import connection

from eventlog import store
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores.sql import dumps
from relay.contract import from_message, messages, stored_text, to_message
from relay.reader import read_rows
from tests.store_contract import WAIT, register_renamed, stream

NOTE = 'tab\t nl\n ctl\x01 quote" back\\ é 😀 </script>'
PINNED = RecordedEvent(
    position=42,
    event_id=UUID("0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
    stream_id='cart-ünï"q',
    version=3,
    type="ItemAdded",
    schema_version=1,
    data={"sku": "COF-001", "quantity": 2, "unit_price": "12.50", "note": NOTE, "ratio": 0.1, "big": 2**62,
          "nested": [None, True, {"a": []}]},
    metadata={"actor": "user:1", "causation_id": None},
    occurred_at=datetime(2026, 1, 5, 9, 0, tzinfo=UTC),
    recorded_at=datetime(2026, 1, 5, 9, 0, 0, 123, tzinfo=UTC),
)  # fmt: skip


def test_an_events_message_is_the_pinned_bytes() -> None:
    assert to_message(PINNED) == (
        'cart-ünï"q',
        b'{"position":42,"event_id":"0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a","stream_id":"cart-\xc3\xbcn\xc3\xaf\\"q",'
        b'"version":3,"type":"ItemAdded","schema_version":1,"data":{"big": 4611686018427387904, "sku": "COF-001", '
        b'"note": "tab\\t nl\\n ctl\\u0001 quote\\" back\\\\ \xc3\xa9 \xf0\x9f\x98\x80 </script>", "ratio": 0.1, '
        b'"nested": [null, true, {"a": []}], "quantity": 2, "unit_price": "12.50"},'
        b'"metadata":{"actor": "user:1", "causation_id": null},'
        b'"occurred_at":"2026-01-05T09:00:00+00:00","recorded_at":"2026-01-05T09:00:00.000123+00:00"}',
        [
            ("event_id", b"0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
            ("type", b"ItemAdded"),
            ("schema_version", b"1"),
            ("contract_version", b"1"),
        ],
    )


@pytest.mark.parametrize(
    "when",
    [
        datetime(2026, 1, 5, 9, 0, tzinfo=UTC),
        datetime(2026, 1, 5, 9, 0, 0, 1, tzinfo=UTC),
        datetime(2026, 1, 5, 9, 0, 0, 120000, tzinfo=UTC),
        datetime(2026, 1, 5, 9, 0, tzinfo=timezone(timedelta(hours=-3, minutes=-30))),
        datetime(1, 1, 1, tzinfo=UTC),
    ],
)
def test_a_timestamp_is_written_as_isoformat_writes_it(when: datetime) -> None:
    event = RecordedEvent(**{**PINNED.__dict__, "occurred_at": when})
    assert f'"occurred_at":"{when.isoformat()}"'.encode() in to_message(event)[1]


def corners() -> list[tuple[str, NewEvent]]:
    at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

    def new(type_: str, data: dict[str, Any], schema_version: int = 1, **more: Any) -> NewEvent:
        return NewEvent(type=type_, data=data, occurred_at=more.get("at", at), schema_version=schema_version,
                        metadata=more.get("metadata", {"actor": "user:ü", "n": None}))  # fmt: skip

    return [
        (stream("cart"), new("ItemAdded", {"sku": "COF-001", "quantity": 2, "unit_price": "12.50", "note": NOTE})),
        (stream("cart"), new("CartStarted", {"owner": "user:1"}, at=at.replace(microsecond=987654))),
        (stream("cart"), new("ItemRemoved", {"sku": "X"}, at=at.replace(microsecond=100), metadata={})),
        (stream("test"), new("ContractRenamed", {"name": "Ada", "n": 1})),  # upcast to version 2 on the way out
        (stream("test"), new("NobodyRegisteredThis", {"f": 0.1, "e": 1e-7, "big": 1e300, "i": -(2**63), "z": 0})),
        (stream("test"), new("Nested", {"a": [1, [2, {"b": None}], True, False, ""], "": {"": "\u2028\x7f"}})),
        (stream("test"), new("Ordered", {"zz": {"ü": 1.0, "é": [1e16, 1.5e-5, 2.5e20]}, "b": "\x1f", "aaa": {}})),
        ('cart-weird"id\\ü', new("CartStarted", {"owner": "anon:x"})),
    ]


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[RecordedEvent]]:
    """The corners appended to the log: the position before them, and the events `read_all` returns."""
    register_renamed(monkeypatch)
    start = store.head_position()
    for stream_id, event in corners():
        store.append(stream_id, 0, [event])
    deadline = time.monotonic() + WAIT  # on a shared server, another transaction may hold read_all back a while
    while len(events := store.read_all(start, 100)) < len(corners()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(events) == len(corners())
    return start, events


@pytest.mark.django_db(transaction=True)
def test_the_relays_rows_give_the_messages_of_the_events_read_all_returns(
    logged: tuple[int, list[RecordedEvent]],
) -> None:
    start, events = logged
    expected = [to_message(event) for event in events]
    [renamed] = [value for _, value, _ in expected if b'"type":"ContractRenamed"' in value]
    assert b'"schema_version":2,"data":{"n": 1, "full_name": "Ada"}' in renamed  # upcast, as read_all does

    assert list(messages(read_rows(start, 100))) == expected


@pytest.mark.django_db(transaction=True)
def test_a_consumer_decodes_the_event_read_all_returns(logged: tuple[int, list[RecordedEvent]]) -> None:
    start, events = logged
    assert [from_message(value) for _, value, _ in messages(read_rows(start, 100))] == events


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_document_is_written_as_postgresql_writes_jsonb() -> None:
    documents = [PINNED.data, PINNED.metadata, *(event.data for _, event in corners()), {"bb": 1, "a": 2, "é": 3}]
    with connection.cursor() as cursor:
        for document in documents:
            cursor.execute("SELECT %s::jsonb::text", [dumps(document)])
            assert cursor.fetchone()[0] == stored_text(document)
    assert stored_text({"bb": 1, "a": [], "é": {}}) == '{"a": [], "bb": 1, "é": {}}'  # é is two bytes
    assert stored_text([1e-7, 1e16, 1.0, -(2**63)]) == "[0.0000001, 10000000000000000, 1.0, -9223372036854775808]"
