"""The log on SQLite: one writer at a time, so positions commit in order.

With a single writer (transactions BEGIN IMMEDIATE, see settings) a plain
`position > P` read is already gap-safe, and holding appends is what any
write transaction does anyway.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

from django.db import IntegrityError, transaction

from ..alongside import LAST_POSITION, LAST_VERSION, Appended, Row, to_sql
from ..errors import RowConflictError, WrongExpectedVersionError
from ..records import NewEvent, RecordedEvent
from .base import LogReader, read_missed
from .sql import SqlStore, dumps

INSERT = (
    "INSERT INTO eventlog_event (event_id, stream_id, version, type, schema_version, data, metadata,"
    " occurred_at, recorded_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


class SqliteStore(SqlStore):
    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        alongside: Sequence[Row] = (),
        catch_up: int = 0,
    ) -> list[RecordedEvent]:
        """The events, then the rows alongside, in one transaction (a savepoint inside one).
        What a failed append missed (`catch_up`) is read after it, by a second statement."""
        if not events:
            return []
        recorded_at = datetime.now(UTC)
        try:
            with transaction.atomic(using=self.using):
                try:
                    rows = self._insert(stream_id, expected_version, events, recorded_at)
                except IntegrityError as error:
                    raise WrongExpectedVersionError(stream_id, expected_version) from error
                self._write(alongside, last={LAST_POSITION: rows[-1][0], LAST_VERSION: rows[-1][1]})
        except WrongExpectedVersionError as behind:
            behind.missed = read_missed(self, stream_id, expected_version, catch_up)
            raise
        return [
            event.recorded(position=position, stream_id=stream_id, version=version, recorded_at=recorded_at)
            for (position, version), event in zip(rows, events, strict=True)
        ]

    def _write(self, alongside: Sequence[Row], last: dict[Appended, int]) -> None:
        with self.connection.cursor() as cursor:
            for row in alongside:
                sql, params = to_sql(row, last)
                try:
                    cursor.execute(sql, params)
                except IntegrityError as error:
                    raise RowConflictError(row.table) from error

    def _insert(
        self, stream_id: str, expected: int, events: Sequence[NewEvent], recorded_at: datetime
    ) -> list[tuple[int, int]]:
        ops = self.connection.ops
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT COALESCE(MAX(version), 0) FROM eventlog_event WHERE stream_id = %s", [stream_id])
            (current,) = cursor.fetchone()
            if current != expected:
                raise WrongExpectedVersionError(stream_id, expected, current)
            rows = []
            for version, event in enumerate(events, start=expected + 1):
                cursor.execute(
                    INSERT,
                    [
                        event.event_id.hex,
                        stream_id,
                        version,
                        event.type,
                        event.schema_version,
                        dumps(event.data),
                        dumps(event.metadata),
                        ops.adapt_datetimefield_value(event.occurred_at),
                        ops.adapt_datetimefield_value(recorded_at),
                    ],
                )
                rows.append((int(cursor.lastrowid), version))
            return rows

    def read_all(
        self, after_position: int, limit: int = 1000, *, categories: Sequence[str] | None = None
    ) -> list[RecordedEvent]:
        return self.select_after(after_position, limit, categories)

    def lock_stream(self, stream_id: str) -> None:
        """SQLite runs one writer at a time: nothing to queue behind."""

    @contextmanager
    def hold_appends(self) -> Iterator[LogReader]:
        """The transaction's BEGIN IMMEDIATE already holds SQLite's one write lock."""
        self.require_transaction()
        yield self
