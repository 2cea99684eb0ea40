"""The log on PostgreSQL: appends through `eventlog_append`, gap-safe reads by transaction id.

`read_all` returns only rows whose transaction is older than the oldest one
still running, so it never skips an event that commits late (invariant 3).
Why that holds, and the locks below, are in `eventlog_append` (migration 0003)
and docs/adr/0002-gap-safe-readers.md. An append is announced to the log's readers
(eventlog/channels.py): in its own transaction for the categories a read cache watches
(settings.EVENTLOG_ANNOUNCE_AT_COMMIT), just after its commit by the process's
announcer for every other (eventlog/announcer.py says why).
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError

from ..alongside import Appended, Row, to_sql
from ..announcer import announce_after_commit
from ..channels import notifications
from ..errors import RowConflictError, WrongExpectedVersionError
from ..records import NewEvent, RecordedEvent
from . import wire
from .base import LogReader
from .sql import COLUMNS, SqlStore, dumps, record

# The advisory lock keys eventlog_append uses. Migration 0003 spells them in its
# SQL (a migration must not change with the code); a test checks that they agree.
ORDER_LOCK = 74260001  # session lock: taking a transaction id and positions, in one order
SLOW_LOCK = 74260002  # transaction lock: shared by fast appends, exclusive for slow ones (and hold_appends)
STREAM_LOCK_CLASS = 7426  # first key of the per-stream advisory locks (lock_stream)
# Stop before the oldest transaction still running: any row it (or a later
# writer) will commit has a higher position than what we return.
VISIBLE = "transaction_id < pg_snapshot_xmin(pg_current_snapshot())"


class PostgresStore(SqlStore):
    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        alongside: Sequence[Row] = (),
        catch_up: int = 0,
    ) -> list[RecordedEvent]:
        """One statement, the rows alongside included (`append_statement`): outside a
        transaction it is one of its own, so a command commits in one round trip. With
        `catch_up`, the same statement returns the events it missed instead of failing."""
        if not events:
            return []
        recorded_at = datetime.now(UTC)
        category = stream_id.partition("-")[0]
        listened = settings.CONSUMER_LISTEN  # off (behind a pooler in transaction mode), nobody hears it
        at_commit = listened and category in settings.EVENTLOG_ANNOUNCE_AT_COMMIT  # else after: no commit lock
        sql, params = append_statement(
            [stream_id, expected_version, _payload(events), recorded_at, at_commit], alongside, catch_up
        )
        try:
            rows = self.fetch(sql, params)
        except IntegrityError as error:
            table = getattr(getattr(error.__cause__, "diag", None), "table_name", None)
            if table in {row.table for row in alongside}:
                raise RowConflictError(table) from error
            raise WrongExpectedVersionError(stream_id, expected_version) from error
        if catch_up:
            if not rows or not rows[0][0]:  # not appended: the rows are the events it missed, if any
                missed = [record(row[1:]) for row in rows]
                raise WrongExpectedVersionError(stream_id, expected_version, missed=missed)
            rows = [(row[1], row[4]) for row in rows]  # position, version
        if listened and not at_commit:
            announce_after_commit(category, self.connection)
        return [
            event.recorded(position=int(position), stream_id=stream_id, version=int(version), recorded_at=recorded_at)
            for (position, version), event in zip(rows, events, strict=True)
        ]

    def fetch(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Over libpq, without a cursor, where that is the same as a cursor (wire.py)."""
        rows = wire.fetch(self.connection, sql, params)
        return super().fetch(sql, params) if rows is None else rows

    def read_all(
        self, after_position: int, limit: int = 1000, *, categories: Sequence[str] | None = None
    ) -> list[RecordedEvent]:
        """Gap-safe: the events after `after_position` up to the first one that is not safe yet.

        An event is safe when the transaction that wrote it is older than the oldest one
        still running (VISIBLE). Filtering on that alone is not enough: a transaction whose
        id was taken before it appended (the slow path of eventlog_append) holds positions
        *after* events of newer transactions. Once it commits, its events pass the filter
        while a committed event before them may still be held back by another old
        transaction, and a reader that returned them would move past that event for good.
        So the read stops at the first committed event that is not safe yet (ADR 0002).

        A transaction that has already written counts as running for its own reads: it
        does not see the events it appended until it commits (so a test that appends
        and then consumes must commit in between)."""
        return self.select_after(after_position, limit, categories, until_not=VISIBLE)

    def announce(self, categories: Sequence[str]) -> None:
        if categories:
            with self.connection.cursor() as cursor:
                cursor.execute(notifications(categories))

    def read_all_rows(
        self, after_position: int, limit: int, categories: Sequence[str] | None, columns: str
    ) -> list[tuple[Any, ...]]:
        """`read_all`'s rows undecoded, only `columns`, gap-safe as `read_all` (a rebuild's bulk read)."""
        return self.select_rows_after(after_position, limit, categories, columns, VISIBLE)

    def lock_stream(self, stream_id: str) -> None:
        # An advisory lock takes no transaction id, so the append that follows stays on
        # eventlog_append's fast path; the two-key form keeps it apart from its one-key locks.
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [STREAM_LOCK_CLASS, stream_id])

    @contextmanager
    def hold_appends(self) -> Iterator[LogReader]:
        """SLOW_LOCK, exclusively: waits until every append in flight has committed and
        holds every new one until this transaction ends. With no append in flight every
        committed event is safe, so the reader drops the transaction-id filter (which
        any running transaction, append or not, would hold back)."""
        self.require_transaction()
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SLOW_LOCK])
        yield _EveryCommitted(self)

    def prepare_bulk_read(self, cursor: Any) -> None:
        """Use psycopg's own timestamptz loader (C) on this cursor, not Django's Python subclass.

        Two timestamps per event were the largest cost of reading the log in bulk
        (a rebuild, a consumer catching up: docs/benchmarks.md, section rebuild).
        The values are the same: aware datetimes in the session's time zone, UTC.
        """
        from psycopg.types.datetime import TimestamptzLoader

        cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)


APPEND = "SELECT out_position, out_version FROM eventlog_append(%s, %s, %s::jsonb, %s, %s)"
# A catching-up append: the stream's version as this statement sees it, the append only if
# that is the one expected (an uncorrelated subquery: PostgreSQL checks it once, before it
# calls the function at all), and otherwise the events after the expected version.
FOUND = "SELECT COALESCE(MAX(version), 0) AS version FROM eventlog_event WHERE stream_id = %s"
# Before it appends, it waits in line behind a retry that holds the stream (`lock_stream`):
# without that, writers that each take one statement overtake a retry's read and write
# every time, and it runs out of attempts (tests/integration/test_concurrency_cart.py).
QUEUED = f"SELECT pg_advisory_xact_lock_shared({STREAM_LOCK_CLASS}, hashtext(%s)) IS NULL AS never"
APPEND_IF_FOUND = f"{APPEND} WHERE (SELECT version FROM found) = %s AND NOT (SELECT never FROM queued)"
APPENDED_OR_MISSED = f"""SELECT true, out_position, NULL, NULL, out_version, NULL, NULL, NULL, NULL, NULL, NULL
  FROM appended
UNION ALL
(SELECT false, {COLUMNS} FROM eventlog_event
  WHERE stream_id = %s AND version > %s AND (SELECT version FROM found) <> %s ORDER BY version LIMIT %s)
ORDER BY 5"""
ROW_IF_APPENDED = "EXISTS (SELECT FROM appended)"


def append_statement(append_params: list[Any], alongside: Sequence[Row], catch_up: int = 0) -> tuple[str, list[Any]]:
    """The append and its rows as one statement: `eventlog_append` in a CTE, each row an
    INSERT beside it that reads the appended position or version from that CTE.

    The rows' INSERTs run after the append: the main query reads `appended` first, and
    PostgreSQL runs data-modifying CTEs the main query does not read only once it is done.
    That keeps the append on its fast path (it must be the transaction's first write,
    migration 0003); `test_an_append_with_rows_alongside_stays_on_the_fast_path`
    (tests/integration/test_command_round_trips.py) checks the lock it took.
    If any part fails, the whole statement does: nothing is appended, no row is written.

    With `catch_up` the statement first finds the stream's version (FOUND) and appends only
    if it is the expected one; if not, it writes nothing (each row only if the append
    appended: ROW_IF_APPENDED) and returns up to `catch_up` events after the expected
    version instead (APPENDED_OR_MISSED: a flag, then the appended position and version or
    a missed event's COLUMNS). A writer that raced it between the two still fails the
    append's own check, as without `catch_up`.
    """
    if not alongside and not catch_up:
        return APPEND, append_params
    stream_id, expected = append_params[0], append_params[1]
    if catch_up:
        parts = [
            f"found AS MATERIALIZED ({FOUND})",
            f"queued AS MATERIALIZED ({QUEUED})",
            f"appended AS MATERIALIZED ({APPEND_IF_FOUND})",
        ]
        params = [stream_id, stream_id, *append_params, expected]
    else:
        parts, params = [f"appended AS MATERIALIZED ({APPEND})"], list(append_params)
    for n, row in enumerate(alongside, start=1):
        sql, row_params = to_sql(row, _from_appended, when=ROW_IF_APPENDED)
        parts.append(f"row_{n} AS ({sql})")
        params.extend(row_params)
    if catch_up:
        return f"WITH {', '.join(parts)} {APPENDED_OR_MISSED}", [*params, stream_id, expected, expected, catch_up]
    return f"WITH {', '.join(parts)} SELECT out_position, out_version FROM appended ORDER BY out_version", params


def _from_appended(value: Appended) -> str:
    return f"(SELECT max({value.value}) FROM appended)"


class _EveryCommitted:
    """`read_all` while appends are held: everything committed, no transaction-id filter."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def read_all(
        self, after_position: int, limit: int = 1000, *, categories: Sequence[str] | None = None
    ) -> list[RecordedEvent]:
        return self.store.select_after(after_position, limit, categories)


def _payload(events: Sequence[NewEvent]) -> str:
    return dumps(
        [
            {
                "event_id": str(e.event_id),
                "type": e.type,
                "schema_version": e.schema_version,
                "data": e.data,
                "metadata": e.metadata,
                "occurred_at": e.occurred_at.isoformat(),
            }
            for e in events
        ]
    )
