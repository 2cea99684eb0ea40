"""Reading the log one batch ahead, in a thread of its own, while the rebuild applies the last.

A rebuild alternates between waiting for PostgreSQL (the read, the upsert, the
commit) and folding in Python; reading batch n+1 on a second connection while
batch n is applied and committed overlaps the two. The read needs no
transaction of ours: `store.read_all` is gap-safe on any connection, and a
batch is fixed by the position it starts after.

A projection with `apply_decoded` (cart_view) gets its batches lean: only
the columns a fold needs (LEAN_COLUMNS), as rows, which `decode` turns straight
into `LogEvent`s (the domain event, with no `RecordedEvent`, event id, metadata
or recording time). The rows are the same ones `read_all` returns
(`read_all_rows`: the same query, the same gap-safe stop); a third of a
rebuild's time went into the parts it leaves out. They are decoded by the
thread that folds them, not here: decoding in this thread held the GIL just
when the folding thread came back from a PostgreSQL round trip and wanted it
(the whole rebuild was about 15% slower).
"""

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection

from eventlog import store
from eventlog.codec import DomainEvent, decode_stored
from eventlog.stores import for_connection
from eventlog.stores.sql import SqlStore, loads, parse_timestamp

# What a lean batch reads of each event, in LogEvent's order (schema version and data become the domain event).
LEAN_COLUMNS = "position, stream_id, version, type, schema_version, data, occurred_at"


class LogEvent(NamedTuple):
    """An event as a rebuild folds it: where it stands in the log, and its domain event
    (None for a type no module registered), upcast as `RecordedEvent.domain_event` is."""

    position: int
    stream_id: str
    version: int
    type: str
    occurred_at: datetime
    domain_event: DomainEvent | None


def decode(rows: Sequence[Sequence[Any]]) -> list[LogEvent]:
    """Rows of LEAN_COLUMNS as LogEvents."""
    return Decoder()(rows)


class Decoder:
    """`decode`, remembering the domain events it built: a log repeats itself (the same SKU
    added at the same price in the same quantity by many carts), and a domain event is a
    frozen value, so rows with the same stored type, schema version and data can share one.
    Decoding them (JSON, then the codec) was a third of a rebuild's Python time."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self.known: dict[tuple[str, int, str], DomainEvent | None] = {}

    def __call__(self, rows: Sequence[Sequence[Any]]) -> list[LogEvent]:
        known = self.known
        if len(known) > self.limit:  # bounded: distinct events (order ids) would only grow it
            known.clear()
        events = []
        for position, stream_id, version, type_, schema_version, data, occurred_at in rows:
            key = (type_, schema_version, data)
            event = known.get(key, _UNSEEN) if type(data) is str else _UNSEEN
            if event is _UNSEEN:
                event = decode_stored(type_, schema_version, loads(data))
                if type(data) is str:
                    known[key] = event
            if type(occurred_at) is not datetime or occurred_at.tzinfo is None:  # SQLite's text
                occurred_at = parse_timestamp(occurred_at)
            # tuple.__new__: LogEvent(...) would run namedtuple's __new__, a Python function, per event
            events.append(_new(LogEvent, (int(position), stream_id, int(version), type_, occurred_at, event)))
        return events


_UNSEEN: Any = object()
_new = tuple.__new__


def read_rows(after: int, limit: int, categories: Sequence[str]) -> list[tuple[Any, ...]]:
    """`store.read_all(after, limit, categories=...)` as rows of LEAN_COLUMNS."""
    log = for_connection()
    if not isinstance(log, SqlStore):  # pragma: no cover - every Django database has an SQL store
        raise TypeError(f"no bulk read on {type(log).__name__}")
    return log.read_all_rows(after, limit, categories, LEAN_COLUMNS)


def read_lean(after: int, limit: int, categories: Sequence[str]) -> list[LogEvent]:
    """`store.read_all(after, limit, categories=...)`, as LogEvents."""
    return decode(read_rows(after, limit, categories))


class Reader:
    def __init__(self, categories: tuple[str, ...], batch_size: int, *, lean: bool = False) -> None:
        self.categories, self.batch_size, self.lean = categories, batch_size, lean
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebuild-read")
        self.ahead: tuple[int, Future[list[Any]]] | None = None
        self.decode = Decoder()  # for the thread that folds (see the module doc)

    def read(self, after: int) -> list[Any]:
        """The batch after `after` (RecordedEvents, or rows of LEAN_COLUMNS if `lean`); when it
        is full, the next one is on its way already."""
        if self.ahead is None or self.ahead[0] != after:
            self.ahead = (after, self.pool.submit(self._read, after))
        events = self.ahead[1].result()
        full = len(events) == self.batch_size
        last = self.last_position(events) if full else 0
        self.ahead = (last, self.pool.submit(self._read, last)) if full else None
        return events

    def last_position(self, batch: list[Any]) -> int:
        return int(batch[-1][0] if self.lean else batch[-1].position)

    def _read(self, after: int) -> list[Any]:
        if self.lean:
            return read_rows(after, self.batch_size, self.categories)
        return store.read_all(after, self.batch_size, categories=self.categories)

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.pool.submit(close_own_connection).result()
        self.pool.shutdown()


def close_own_connection() -> None:
    connection.close()  # resolved in the calling thread: the reader's own connection
