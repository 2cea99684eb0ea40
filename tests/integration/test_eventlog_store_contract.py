"""The event store's contract (invariants 1 and 2, and upcasting), backend-neutral.

The suite runs once on PostgreSQL and once on SQLite (scripts/test.sh), so this
one class is the contract every backend of `eventlog.store` must pass.
"""

import time
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import pytest
from django.db import DatabaseError, connection, transaction

from eventlog import registry, store
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def new(type_: str = "Tested", n: int = 0, schema_version: int = 1, **data: Any) -> NewEvent:
    return NewEvent(type=type_, data={"n": n, **data}, occurred_at=NOW, schema_version=schema_version)


def stream() -> str:
    return f"test-{uuid4().hex[:12]}"


def raw_rows(stream_id: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, type, schema_version, data FROM eventlog_event WHERE stream_id = %s ORDER BY version",
            [stream_id],
        )
        return cursor.fetchall()


def visible(after: int, count: int) -> None:
    """Wait until `read_all` returns the `count` events committed after `after`.

    On PostgreSQL it holds back everything newer than the oldest transaction
    still writing anywhere on the server, and other test runs share the server:
    an empty read means "not yet". Once visible, events stay visible.
    """
    deadline = time.monotonic() + 10
    while len(store.read_all(after)) < count and time.monotonic() < deadline:
        time.sleep(0.01)


def register_renamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ContractRenamed` v2 renamed `name` to `full_name`; registered for one test only."""
    monkeypatch.setattr(registry, "_types", dict(registry._types))
    registry.register(
        registry.EventType(
            name="ContractRenamed",
            schema_version=2,
            upcasters={1: lambda data: {"full_name": data["name"], "n": data["n"]}},
        )
    )


@pytest.mark.django_db
class TestEventStoreContract:
    def test_append_gives_versions_from_the_expected_one_and_increasing_positions(self) -> None:
        s = stream()
        first = store.append(s, 0, [new(n=1), new(n=2)])
        second = store.append(s, 2, [new(n=3)])
        assert [e.version for e in first + second] == [1, 2, 3]
        positions = [e.position for e in first + second]
        assert positions == sorted(positions) and len(set(positions)) == 3
        assert store.stream_version(s) == 3

    def test_an_event_reads_back_with_every_field(self) -> None:
        s = stream()
        event = NewEvent(type="Tested", data={"a": [1, "x"]}, occurred_at=NOW, metadata={"actor": "user:1"})
        [recorded] = store.append(s, 0, [event])
        [read] = store.read_stream(s)
        assert read == recorded
        assert (read.event_id, read.type, read.data, read.metadata, read.occurred_at) == (
            event.event_id, "Tested", {"a": [1, "x"]}, {"actor": "user:1"}, NOW,
        )  # fmt: skip

    @pytest.mark.parametrize("stale", [0, 1, 3])
    def test_a_stale_expected_version_is_refused_and_appends_nothing(self, stale: int) -> None:
        s = stream()
        store.append(s, 0, [new(n=1), new(n=2)])
        with pytest.raises(WrongExpectedVersionError), transaction.atomic():
            store.append(s, stale, [new(n=99)])
        assert [e.data["n"] for e in store.read_stream(s)] == [1, 2]

    def test_read_stream_up_to_a_version_is_the_stream_as_it_was(self) -> None:
        s = stream()
        store.append(s, 0, [new(n=i) for i in range(1, 6)])
        assert [e.version for e in store.read_stream(s, up_to_version=3)] == [1, 2, 3]
        assert [e.version for e in store.read_stream(s)] == [1, 2, 3, 4, 5]
        assert store.read_stream(stream()) == []

    def test_streams_do_not_see_each_other(self) -> None:
        a, b = stream(), stream()
        store.append(a, 0, [new(n=1)])
        store.append(b, 0, [new(n=2)])
        assert [e.data["n"] for e in store.read_stream(a)] == [1]
        assert store.stream_version(b) == 1

    def test_an_old_schema_version_is_upcast_on_read_and_stays_old_in_the_table(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        register_renamed(monkeypatch)
        s = stream()
        store.append(s, 0, [new("ContractRenamed", n=1, schema_version=1, name="Ada")])
        [read] = store.read_stream(s)
        assert (read.schema_version, read.data) == (2, {"full_name": "Ada", "n": 1})
        [(_, _, stored_schema, stored_data)] = raw_rows(s)
        assert stored_schema == 1
        assert store._loads(stored_data) == {"name": "Ada", "n": 1}

    def test_registering_a_new_version_without_its_upcaster_is_refused(self) -> None:
        with pytest.raises(ValueError, match="no upcaster"):
            registry.register(registry.EventType(name="ContractBroken", schema_version=3, upcasters={1: dict}))


@pytest.mark.django_db(transaction=True)
class TestReadingTheWholeLog:
    """`read_all` sees committed events only (on PostgreSQL, those older than every
    running transaction), so these tests commit each append, and first wait until
    the reads have caught up with them (see `visible`)."""

    def test_read_all_returns_everything_after_a_position_in_order_in_batches(self) -> None:
        start = store.head_position()
        a, b = stream(), stream()
        written = []
        for i in range(7):
            written += store.append(a if i % 2 else b, store.stream_version(a if i % 2 else b), [new(n=i)])
        visible(start, 7)
        batches = list(store.iter_all(start, batch_size=3))
        assert [len(batch) for batch in batches] == [3, 3, 1]
        read = [event for batch in batches for event in batch]
        assert [e.event_id for e in read] == [e.event_id for e in written]
        assert [e.position for e in read] == sorted(e.position for e in written)
        assert [e.position for e in store.read_all(written[3].position)] == [e.position for e in written[4:]]

    def test_read_all_filters_by_stream_category(self) -> None:
        start = store.head_position()
        store.append(f"alpha-{uuid4().hex}", 0, [new(n=1)])
        store.append(f"beta-{uuid4().hex}", 0, [new(n=2)])
        visible(start, 2)
        assert [e.data["n"] for e in store.read_all(start, categories=["beta"])] == [2]

    def test_read_all_upcasts_like_read_stream(self, monkeypatch: pytest.MonkeyPatch) -> None:
        register_renamed(monkeypatch)
        start = store.head_position()
        store.append(stream(), 0, [new("ContractRenamed", n=1, name="Ada")])
        visible(start, 1)
        assert [(e.schema_version, e.data) for e in store.read_all(start)] == [(2, {"full_name": "Ada", "n": 1})]


# The trigger refuses, or before it the runtime role's missing rights (tests/integration/test_runtime_role.py).
REFUSED = "append-only|permission denied"


@pytest.mark.django_db
class TestTheEventTableIsAppendOnly:
    """Invariant 1 is kept by the database itself, not by our code's good manners."""

    @pytest.fixture(autouse=True)
    def one_event(self) -> str:
        if connection.vendor == "sqlite":
            # The DELETE trigger yields to a purge permit; none must exist here.
            with connection.cursor() as cursor:
                cursor.execute("DELETE FROM eventlog_purge_permit")
                cursor.execute("SELECT COUNT(*) FROM eventlog_purge_permit")
                assert cursor.fetchone()[0] == 0
        self.stream_id = stream()
        store.append(self.stream_id, 0, [new(n=1)])
        return self.stream_id

    @pytest.mark.parametrize(
        "sql",
        [
            "UPDATE eventlog_event SET type = 'Forged' WHERE stream_id = %s",
            "UPDATE eventlog_event SET version = version + 10 WHERE stream_id = %s",
            "DELETE FROM eventlog_event WHERE stream_id = %s",
        ],
    )
    def test_raw_sql_cannot_change_or_remove_an_event(self, sql: str) -> None:
        before = raw_rows(self.stream_id)
        with pytest.raises(DatabaseError, match=REFUSED), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [self.stream_id])
        assert raw_rows(self.stream_id) == before

    def test_even_a_delete_of_everything_is_refused(self) -> None:
        with pytest.raises(DatabaseError, match=REFUSED), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM eventlog_event")
        assert len(raw_rows(self.stream_id)) == 1
