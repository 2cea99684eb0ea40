"""What the PostgreSQL and SQLite stores share: the event table, its rows, and the plain reads."""

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from itertools import takewhile
from typing import Any
from uuid import UUID

import orjson
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils.dateparse import parse_datetime

from .. import registry
from ..errors import AppendsNotHeldError
from ..records import RecordedEvent

COLUMNS = "position, event_id, stream_id, version, type, schema_version, data, metadata, occurred_at, recorded_at"


class SqlStore:
    """The event table through the Django database `using`; subclasses append and read all."""

    def __init__(self, using: str = "default") -> None:
        self.using = using

    @property
    def connection(self) -> BaseDatabaseWrapper:
        return connections[self.using]

    def atomic(self) -> AbstractContextManager[None]:
        return transaction.atomic(using=self.using)

    def in_transaction(self) -> bool:
        return bool(self.connection.in_atomic_block)

    def announce(self, categories: Sequence[str]) -> None:
        """No LISTEN here: readers poll (PostgreSQL overrides it)."""

    def fetch(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of a command's statement (its read or its write) through a cursor;
        PostgreSQL sends them over libpq where it can (wire.py)."""
        with self.connection.cursor() as cursor:
            self.prepare_bulk_read(cursor)
            cursor.execute(sql, params)
            return cursor.fetchall()

    def read_stream(
        self, stream_id: str, up_to_version: int | None = None, *, after_version: int = 0
    ) -> list[RecordedEvent]:
        # The unique index (stream_id, version) serves the range: only the rows returned are read.
        sql = f"SELECT {COLUMNS} FROM eventlog_event WHERE stream_id = %s AND version > %s"
        params: list[Any] = [stream_id, after_version]
        if up_to_version is not None:
            sql += " AND version <= %s"
            params.append(up_to_version)
        with self.connection.cursor() as cursor:
            cursor.execute(sql + " ORDER BY version", params)
            return [record(row) for row in cursor.fetchall()]

    def head_position(self) -> int:
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT COALESCE(MAX(position), 0) FROM eventlog_event")
            return int(cursor.fetchone()[0])

    def stream_version(self, stream_id: str) -> int:
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT COALESCE(MAX(version), 0) FROM eventlog_event WHERE stream_id = %s", [stream_id])
            return int(cursor.fetchone()[0])

    def select_after(
        self, after_position: int, limit: int, categories: Sequence[str] | None, *, until_not: str | None = None
    ) -> list[RecordedEvent]:
        """Events after a position (in the categories given), in position order; with `until_not`
        (an SQL condition on a row), only those before the first row for which it is false."""
        return [record(row) for row in self.select_rows_after(after_position, limit, categories, COLUMNS, until_not)]

    def select_rows_after(
        self, after_position: int, limit: int, categories: Sequence[str] | None, columns: str, until_not: str | None
    ) -> list[tuple[Any, ...]]:
        """`select_after`'s rows as the database returns them, only `columns` (a bulk reader
        that decodes what it needs itself reads less: a rebuild, rebuilds.reader)."""
        conditions = ["position > %s"]
        params: list[Any] = [after_position]
        if categories:
            conditions.append("(" + " OR ".join("stream_id LIKE %s" for _ in categories) + ")")
            params.extend(f"{category}-%" for category in categories)
        flag = f"({until_not})" if until_not else "TRUE"
        sql = (
            f"SELECT {flag}, {columns} FROM eventlog_event WHERE {' AND '.join(conditions)} ORDER BY position LIMIT %s"
        )
        with self.connection.cursor() as cursor:
            self.prepare_bulk_read(cursor)
            cursor.execute(sql, [*params, limit])
            return [row[1:] for row in takewhile(lambda row: bool(row[0]), cursor.fetchall())]

    def read_all_rows(
        self, after_position: int, limit: int, categories: Sequence[str] | None, columns: str
    ) -> list[tuple[Any, ...]]:
        """`read_all`'s rows undecoded, only `columns`: the same events, gap-safe the same way.
        This is SQLite's `read_all`, where every committed event is safe; PostgreSQL overrides it."""
        return self.select_rows_after(after_position, limit, categories, columns, None)

    def prepare_bulk_read(self, cursor: Any) -> None:
        """A backend's hook to speed up decoding many rows; nothing by default."""

    def require_transaction(self) -> None:
        """A hold on appends is a transaction lock: outside a transaction it would end at once."""
        if not self.connection.in_atomic_block:
            raise AppendsNotHeldError("hold_appends() must run inside a transaction (store.atomic())")


_DJANGO_JSON = DjangoJSONEncoder()
# Datetimes and dataclasses go to Django's encoder, as with json.dumps: a datetime written
# the way Django writes it (milliseconds, "Z"), a dataclass refused.
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """A stored document as compact JSON: what json.dumps with Django's encoder writes.

    orjson writes it several times faster (every command writes two or three documents:
    docs/benchmarks.md); what orjson refuses (an integer beyond 64 bits, a type neither it
    nor Django's encoder knows) goes to json.dumps, which writes it or raises as before."""
    try:
        return orjson.dumps(value, default=_DJANGO_JSON.default, option=_OPTIONS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, cls=DjangoJSONEncoder, separators=(",", ":"))


def loads(value: Any) -> Any:
    # orjson: the same values as json.loads, a few times faster; every event read decodes two documents.
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def parse_timestamp(value: datetime | str) -> datetime:
    """A stored timestamp (a datetime, or SQLite's text) as an aware datetime."""
    parsed = value if isinstance(value, datetime) else parse_datetime(value)
    if parsed is None:
        raise ValueError(f"not a timestamp: {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def record(row: Sequence[Any]) -> RecordedEvent:
    """One row of the event table, upcast to its type's current schema version."""
    position, event_id, stream_id, version, type_, schema_version, data, metadata, occurred_at, recorded_at = row
    schema_version, data = registry.upcast(type_, schema_version, loads(data))
    return RecordedEvent(
        position=int(position),
        event_id=event_id if isinstance(event_id, UUID) else UUID(event_id),
        stream_id=stream_id,
        version=int(version),
        type=type_,
        schema_version=schema_version,
        data=data,
        metadata=loads(metadata),
        occurred_at=parse_timestamp(occurred_at),
        recorded_at=parse_timestamp(recorded_at),
    )
