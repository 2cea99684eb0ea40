"""The log in memory: the same contract as the SQL stores, for fast tests of the code above it.

One re-entrant lock serializes everything: a unit of work (`atomic`) holds it
from start to end, so nobody reads what might still roll back, and appends,
like on SQLite, commit in position order. Data goes through JSON on append, as
in the table, so what is read back is what a database would give.
"""

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import orjson

from .. import registry
from ..alongside import LAST_POSITION, LAST_VERSION, Appended, Row
from ..errors import RowConflictError, WrongExpectedVersionError
from ..records import NewEvent, RecordedEvent
from .base import LogReader, read_missed
from .sql import dumps


class MemoryStore:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._events: list[RecordedEvent] = []  # as stored: the schema version written
        self._streams: dict[str, list[RecordedEvent]] = {}
        self.tables: dict[str, dict[Any, dict[str, Any]]] = {}  # the rows written alongside: table -> key -> row

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        alongside: Sequence[Row] = (),
        catch_up: int = 0,
    ) -> list[RecordedEvent]:
        if not events:
            return []
        with self._lock:
            current = self.stream_version(stream_id)
            if current != expected_version:
                missed = read_missed(self, stream_id, expected_version, catch_up)
                raise WrongExpectedVersionError(stream_id, expected_version, current, missed=missed)
            for row in alongside:
                if not row.replace and row.values[row.key] in self.tables.get(row.table, {}):
                    raise RowConflictError(row.table)
            at, head = datetime.now(UTC), len(self._events)
            appended = [
                event.recorded(position=head + n, stream_id=stream_id, version=current + n, recorded_at=at)
                for n, event in enumerate(events, start=1)
            ]
            stored = [replace(e, data=_through_json(e.data), metadata=_through_json(e.metadata)) for e in appended]
            self._events.extend(stored)
            self._streams.setdefault(stream_id, []).extend(stored)
            last = {LAST_POSITION: appended[-1].position, LAST_VERSION: appended[-1].version}
            for row in alongside:
                values = {k: last[v] if isinstance(v, Appended) else v for k, v in row.values.items()}
                self.tables.setdefault(row.table, {})[values[row.key]] = values
        return appended

    def read_stream(
        self, stream_id: str, up_to_version: int | None = None, *, after_version: int = 0
    ) -> list[RecordedEvent]:
        with self._lock:
            events = self._streams.get(stream_id, [])[after_version:]  # version n is at index n - 1
            return [_upcast(e) for e in events if up_to_version is None or e.version <= up_to_version]

    def read_all(
        self, after_position: int, limit: int = 1000, *, categories: Sequence[str] | None = None
    ) -> list[RecordedEvent]:
        prefixes = tuple(f"{category}-" for category in categories or ())
        with self._lock:
            later = self._events[max(after_position, 0) :]  # position n is at index n - 1
            chosen = (e for e in later if not prefixes or e.stream_id.startswith(prefixes))
            return [_upcast(e) for _, e in zip(range(limit), chosen, strict=False)]

    def head_position(self) -> int:
        with self._lock:
            return len(self._events)

    def stream_version(self, stream_id: str) -> int:
        with self._lock:
            events = self._streams.get(stream_id)
            return events[-1].version if events else 0

    def lock_stream(self, stream_id: str) -> None:
        """`atomic` already serializes every writer."""

    def in_transaction(self) -> bool:
        """An append here is all or nothing by itself: a failed one leaves nothing to undo."""
        return False

    def announce(self, categories: Sequence[str]) -> None:
        """Nobody listens to the memory store."""

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """All or nothing; nested blocks roll back to where they began, like savepoints."""
        with self._lock:
            mark, tables = len(self._events), {table: dict(rows) for table, rows in self.tables.items()}
            try:
                yield
            except BaseException:
                self._truncate(mark)
                self.tables = tables
                raise

    @contextmanager
    def hold_appends(self) -> Iterator[LogReader]:
        with self._lock:
            yield self

    def _truncate(self, mark: int) -> None:
        for event in reversed(self._events[mark:]):
            self._streams[event.stream_id].pop()
            if not self._streams[event.stream_id]:
                del self._streams[event.stream_id]
        del self._events[mark:]


def _through_json(value: dict[str, Any]) -> dict[str, Any]:
    """What the table would give back for `value` (Decimals become strings, as in the log)."""
    result: dict[str, Any] = orjson.loads(dumps(value))
    return result


def _upcast(event: RecordedEvent) -> RecordedEvent:
    schema_version, data = registry.upcast(event.type, event.schema_version, event.data)
    if schema_version == event.schema_version:
        return event
    return replace(event, schema_version=schema_version, data=data)
