"""The event store's contract on the SQL backends, and what only a database can enforce.

`EventStoreContract` (tests/store_contract.py) runs here on PostgreSQL (marked
`postgres`) and on SQLite (in the SQLite pass of scripts/test.sh); the same class
runs on the in-memory store in tests/unit. The tests commit (transactional
database): `read_all` sees committed events only, and holding appends needs
a second connection.
"""

import threading
from typing import Any
from uuid import uuid4

import orjson
import pytest
from django.db import DatabaseError, connection, connections, transaction

from eventlog import store
from eventlog.alongside import LAST_POSITION, LAST_VERSION, Row
from eventlog.errors import AppendsNotHeldError, RowConflictError, WrongExpectedVersionError
from eventlog.stores import PostgresStore, SqliteStore
from tests.store_contract import NOW, WAIT, EventStoreContract, new, stream


def raw_rows(stream_id: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, type, schema_version, data FROM eventlog_event WHERE stream_id = %s ORDER BY version",
            [stream_id],
        )
        return cursor.fetchall()


def record(key: str, fingerprint: str, *, replace: bool = False) -> Row:
    """A row of a table every SQL backend has (idempotency records), keyed by `key`: its
    cart_id holds the position and its version the stream version of the append."""
    values = {
        "command_id": key,
        "fingerprint": fingerprint,
        "cart_id": LAST_POSITION,
        "version": LAST_VERSION,
        "recorded_at": connection.ops.adapt_datetimefield_value(NOW),
    }
    return Row(table="carts_processed_command", key="command_id", values=values, replace=replace)


def stored_record(key: str) -> tuple[str, str, int, int] | None:
    """(fingerprint, the stream of the event at position cart_id, version, position) of a record."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.fingerprint, e.stream_id, r.version, e.position FROM carts_processed_command r"
            " JOIN eventlog_event e ON CAST(e.position AS TEXT) = r.cart_id WHERE r.command_id = %s",
            [key],
        )
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1], int(row[2]), int(row[3]))


class SqlStoreContract(EventStoreContract):
    def stored_rows(self, stream_id: str) -> list[tuple[int, str, int, dict[str, Any]]]:
        return [(v, t, s, orjson.loads(d) if isinstance(d, str | bytes) else d) for v, t, s, d in raw_rows(stream_id)]

    def end_thread(self) -> None:
        connections.close_all()

    def test_holding_appends_outside_a_transaction_is_refused(self) -> None:
        with pytest.raises(AppendsNotHeldError), self.store.hold_appends():
            pass

    # --- rows written alongside an append (eventlog.alongside) ------------------------

    def test_rows_alongside_are_written_with_the_appended_position_and_version(self) -> None:
        s, key = stream(), uuid4().hex
        self.store.append(s, 0, [new(n=1)])
        [_, last] = self.store.append(s, 1, [new(n=2), new(n=3)], alongside=[record(key, "first")])
        assert stored_record(key) == ("first", s, 3, last.position)

    def test_a_row_that_replaces_updates_the_one_with_its_key(self) -> None:
        key = uuid4().hex
        self.store.append(stream(), 0, [new(n=1)], alongside=[record(key, "first")])
        [event] = self.store.append(s := stream(), 0, [new(n=2)], alongside=[record(key, "second", replace=True)])
        assert stored_record(key) == ("second", s, 1, event.position)

    def test_a_row_whose_key_is_taken_fails_the_append_and_writes_nothing(self) -> None:
        key, s = uuid4().hex, stream()
        self.store.append(stream(), 0, [new(n=1)], alongside=[record(key, "first")])
        with pytest.raises(RowConflictError) as refused:
            self.store.append(s, 0, [new(n=2)], alongside=[record(f"{key}-other", "x"), record(key, "second")])
        assert refused.value.table == "carts_processed_command"
        assert self.store.read_stream(s) == [] and stored_record(f"{key}-other") is None
        assert stored_record(key) is not None and stored_record(key)[0] == "first"  # type: ignore[index]

    def test_a_stale_append_writes_none_of_its_rows(self) -> None:
        key, s = uuid4().hex, stream()
        self.store.append(s, 0, [new(n=1)])
        with pytest.raises(WrongExpectedVersionError):
            self.store.append(s, 0, [new(n=2)], alongside=[record(key, "first")])
        assert stored_record(key) is None

    def test_a_stale_append_that_catches_up_writes_none_of_its_rows(self) -> None:
        key, s = uuid4().hex, stream()
        self.store.append(s, 0, [new(n=1)])
        with pytest.raises(WrongExpectedVersionError) as behind:
            self.store.append(s, 0, [new(n=2)], alongside=[record(key, "first")], catch_up=10)
        assert [e.data["n"] for e in behind.value.missed or []] == [1]
        assert stored_record(key) is None

    def test_an_append_that_catches_up_writes_its_rows_when_it_appends(self) -> None:
        key, s = uuid4().hex, stream()
        self.store.append(s, 0, [new(n=1)])
        [_, last] = self.store.append(s, 1, [new(n=2), new(n=3)], alongside=[record(key, "first")], catch_up=10)
        assert stored_record(key) == ("first", s, 3, last.position)

    def test_a_row_that_fails_takes_the_append_with_it(self) -> None:
        s = stream()
        broken = Row(table="carts_processed_command", key="command_id", values={"no_such_column": 1})
        with pytest.raises(DatabaseError):
            self.store.append(s, 0, [new(n=1)], alongside=[broken])
        assert self.store.read_stream(s) == []

    def test_the_module_functions_use_this_store(self) -> None:
        s = stream()
        [recorded] = store.append(s, 0, [new(n=1)])
        assert self.store.read_stream(s) == [recorded] == store.read_stream(s)
        assert store.stream_version(s) == 1 and store.head_position() == self.store.head_position()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
class TestPostgresStore(SqlStoreContract):
    @pytest.fixture(autouse=True)
    def _store(self) -> None:
        self.store = PostgresStore()

    def test_the_held_reader_sees_what_a_running_transaction_holds_back_from_read_all(self) -> None:
        """Any transaction with an id, append or not, holds back `read_all`; with appends held
        nothing is in flight, so every committed event is safe to read."""
        start = self.store.head_position()
        has_id, release = threading.Event(), threading.Event()

        def other_writer() -> None:
            try:
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute("SELECT pg_current_xact_id()")  # takes a transaction id, appends nothing
                    has_id.set()
                    release.wait(WAIT)
            finally:
                connections.close_all()

        thread = threading.Thread(target=other_writer)
        thread.start()
        try:
            assert has_id.wait(WAIT)
            [event] = self.store.append(stream(), 0, [new(n=1)])
            assert self.store.read_all(start) == []
            with self.store.atomic(), self.store.hold_appends() as log:
                assert [e.event_id for e in log.read_all(start)] == [event.event_id]
        finally:
            release.set()
            thread.join(WAIT)


@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
class TestSqliteStore(SqlStoreContract):
    @pytest.fixture(autouse=True)
    def _store(self) -> None:
        self.store = SqliteStore()


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
