"""Append to the log and read it back: the only code that touches the event table.

`append` writes a stream's next events in the caller's transaction and refuses
a stale expected version (invariant 2). `read_all` returns the events after a
global position without ever skipping one that commits late (invariant 3); how
that works on PostgreSQL is in `eventlog_append` (migration 0003) and
docs/adr/0002-gap-safe-readers.md. SQLite has a single writer, so positions
commit in order there and a plain `position > P` read is already gap-safe.
"""

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import orjson
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, connections
from django.utils.dateparse import parse_datetime

from . import registry
from .errors import WrongExpectedVersionError
from .records import NewEvent, RecordedEvent

COLUMNS = "position, event_id, stream_id, version, type, schema_version, data, metadata, occurred_at, recorded_at"

# Reads on PostgreSQL stop before the oldest transaction still running: any row
# it (or a later writer) will commit has a higher position than what we return.
PG_VISIBLE = "transaction_id < pg_snapshot_xmin(pg_current_snapshot())"
STREAM_LOCK_CLASS = 7426  # first key of the per-stream advisory locks (lock_stream)


def _dumps(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, separators=(",", ":"))


def append(
    stream_id: str, expected_version: int, events: Sequence[NewEvent], *, using: str = "default"
) -> list[RecordedEvent]:
    """Append `events` as versions expected_version+1.. of `stream_id`.

    Runs inside the caller's transaction: the events become visible when the
    caller commits, together with whatever else it wrote (invariant 4).
    Raises WrongExpectedVersionError if the stream is not at `expected_version`.
    """
    if not events:
        return []
    connection = connections[using]
    recorded_at = datetime.now(UTC)
    try:
        if connection.vendor == "postgresql":
            rows = _append_postgresql(connection, stream_id, expected_version, events, recorded_at)
        else:
            rows = _append_sqlite(connection, stream_id, expected_version, events, recorded_at)
    except IntegrityError as error:
        raise WrongExpectedVersionError(stream_id, expected_version) from error
    return [
        RecordedEvent(
            position=position,
            event_id=event.event_id,
            stream_id=stream_id,
            version=version,
            type=event.type,
            schema_version=event.schema_version,
            data=event.data,
            metadata=event.metadata,
            occurred_at=event.occurred_at,
            recorded_at=recorded_at,
        )
        for (position, version), event in zip(rows, events, strict=True)
    ]


def _append_postgresql(
    connection: Any, stream_id: str, expected: int, events: Sequence[NewEvent], recorded_at: datetime
) -> list[tuple[int, int]]:
    payload = _dumps(
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
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT out_position, out_version FROM eventlog_append(%s, %s, %s::jsonb, %s)",
            [stream_id, expected, payload, recorded_at],
        )
        return [(int(p), int(v)) for p, v in cursor.fetchall()]


def _append_sqlite(
    connection: Any, stream_id: str, expected: int, events: Sequence[NewEvent], recorded_at: datetime
) -> list[tuple[int, int]]:
    ops = connection.ops
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(version), 0) FROM eventlog_event WHERE stream_id = %s", [stream_id])
        (current,) = cursor.fetchone()
        if current != expected:
            raise WrongExpectedVersionError(stream_id, expected, current)
        rows = []
        for offset, event in enumerate(events, start=1):
            cursor.execute(
                "INSERT INTO eventlog_event (event_id, stream_id, version, type, schema_version, data, metadata,"
                " occurred_at, recorded_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    event.event_id.hex,
                    stream_id,
                    expected + offset,
                    event.type,
                    event.schema_version,
                    _dumps(event.data),
                    _dumps(event.metadata),
                    ops.adapt_datetimefield_value(event.occurred_at),
                    ops.adapt_datetimefield_value(recorded_at),
                ],
            )
            rows.append((int(cursor.lastrowid), expected + offset))
        return rows


def lock_stream(stream_id: str, *, using: str = "default") -> None:
    """Queue behind the other writers of `stream_id` that lock it, until this transaction ends.

    A remedy for retry storms, not a correctness device: appends stay checked
    against the expected version (invariant 2) whether the writer locked or not.
    An advisory lock takes no transaction id, so the append that follows stays
    on eventlog_append's fast path. SQLite runs one writer at a time: a no-op.
    """
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # The two-key form keeps these apart from eventlog_append's one-key locks.
            cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [STREAM_LOCK_CLASS, stream_id])


def read_stream(stream_id: str, up_to_version: int | None = None, *, using: str = "default") -> list[RecordedEvent]:
    """One stream's events in version order, optionally only up to a version (time travel)."""
    sql = f"SELECT {COLUMNS} FROM eventlog_event WHERE stream_id = %s"
    params: list[Any] = [stream_id]
    if up_to_version is not None:
        sql += " AND version <= %s"
        params.append(up_to_version)
    with connections[using].cursor() as cursor:
        cursor.execute(sql + " ORDER BY version", params)
        return [_record(row) for row in cursor.fetchall()]


def read_all(
    after_position: int,
    limit: int = 1000,
    *,
    categories: Sequence[str] | None = None,
    using: str = "default",
    appends_paused: bool = False,
) -> list[RecordedEvent]:
    """Up to `limit` events after `after_position`, in position order, gap-safe.

    An empty result means "nothing safe to read yet", not "the log ends here".

    `appends_paused=True` is for a caller that holds SLOW_LOCK exclusively
    (migration 0003): no append is in flight then, so every committed event is
    safe, and the transaction-id filter (which any running transaction, append
    or not, holds back) is dropped. A rebuild's swap of `cart_view` reads so.

    On PostgreSQL, a transaction that has already written counts as running for
    its own reads: it does not see the events it appended until it commits.
    So a test that appends and then consumes must commit in between: use
    `@pytest.mark.django_db(transaction=True)`, not the rollback-wrapped default.
    """
    connection = connections[using]
    where = ["position > %s"]
    params: list[Any] = [after_position]
    if connection.vendor == "postgresql" and not appends_paused:
        where.append(PG_VISIBLE)
    if categories:
        where.append("(" + " OR ".join("stream_id LIKE %s" for _ in categories) + ")")
        params.extend(f"{category}-%" for category in categories)
    sql = f"SELECT {COLUMNS} FROM eventlog_event WHERE {' AND '.join(where)} ORDER BY position LIMIT %s"
    with connection.cursor() as cursor:
        _decode_timestamps_in_c(connection, cursor)
        cursor.execute(sql, [*params, limit])
        return [_record(row) for row in cursor.fetchall()]


def _decode_timestamps_in_c(connection: Any, cursor: Any) -> None:
    """Use psycopg's own timestamptz loader (C) on this cursor, not Django's Python subclass.

    Two timestamps per event were the largest cost of reading the log in bulk
    (a rebuild, a consumer catching up: docs/benchmarks.md, section rebuild).
    The values are the same: aware datetimes in the session's time zone, UTC.
    """
    if connection.vendor == "postgresql":
        from psycopg.types.datetime import TimestamptzLoader

        cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)


def iter_all(
    after_position: int = 0, batch_size: int = 1000, *, using: str = "default"
) -> Iterator[list[RecordedEvent]]:
    """Batches of everything after `after_position` that is safe to read now."""
    while batch := read_all(after_position, batch_size, using=using):
        yield batch
        after_position = batch[-1].position


def head_position(*, using: str = "default") -> int:
    """The highest position committed so far (0 for an empty log)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(position), 0) FROM eventlog_event")
        return int(cursor.fetchone()[0])


def stream_version(stream_id: str, *, using: str = "default") -> int:
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(version), 0) FROM eventlog_event WHERE stream_id = %s", [stream_id])
        return int(cursor.fetchone()[0])


def _record(row: Sequence[Any]) -> RecordedEvent:
    position, event_id, stream_id, version, type_, schema_version, data, metadata, occurred_at, recorded_at = row
    schema_version, data = registry.upcast(type_, schema_version, _loads(data))
    return RecordedEvent(
        position=int(position),
        event_id=event_id if isinstance(event_id, UUID) else UUID(event_id),
        stream_id=stream_id,
        version=int(version),
        type=type_,
        schema_version=schema_version,
        data=data,
        metadata=_loads(metadata),
        occurred_at=_datetime(occurred_at),
        recorded_at=_datetime(recorded_at),
    )


def _loads(value: Any) -> Any:
    # orjson: the same values as json.loads, a few times faster; every event read decodes two documents.
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def _datetime(value: datetime | str) -> datetime:
    parsed = value if isinstance(value, datetime) else parse_datetime(value)
    if parsed is None:
        raise ValueError(f"not a timestamp: {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
