"""What the relay reads: the log after a position as lean rows, and, while it catches up, the next batch ahead.

A read waits for PostgreSQL and producing does not, so while the relay produces
a full batch the one after it is read on a connection of the reader's own, in a
thread (as a rebuild does: rebuilds/reader.py). A read is fixed by the position
it starts after and is gap-safe whenever it runs, so a batch read ahead is the
batch `read_rows` would return; the checkpoint is none of the reader's business.
"""

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import connection

from eventlog.stores import PostgresStore, for_connection
from eventlog.stores.sql import SqlStore
from kernel.cleanup import quietly

from .contract import MESSAGE_COLUMNS, canonical

Rows = list[tuple[Any, ...]]


def read_rows(after: int, limit: int) -> Rows:
    """`store.read_all(after, limit)` as rows of MESSAGE_COLUMNS: the same events, gap-safe the same
    way (`read_all_rows`), without making a RecordedEvent of each (docs/benchmarks.md, relay)."""
    log = for_connection()
    if not isinstance(log, SqlStore):  # pragma: no cover - every Django database has an SQL store
        raise TypeError(f"no bulk read on {type(log).__name__}")
    rows = log.read_all_rows(after, limit, None, MESSAGE_COLUMNS)
    return rows if isinstance(log, PostgresStore) else canonical(rows)


class Reader:
    """`read_rows` for one relay: after a full batch, the next is read meanwhile in a thread.

    On a log that is caught up (a batch short of the limit) nothing is read ahead and the
    thread's connection is closed: an idle relay holds one connection, as before."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relay-read")
        self.ahead: tuple[int, Future[Rows]] | None = None
        self.connected = False  # whether the thread may hold a connection (it read since it last closed it)

    def read(self, after: int) -> Rows:
        """The batch after `after`: the one read ahead if it is full, else read now (a short batch
        read ahead is old news about where the log ends). An error reading ahead is raised here."""
        ahead, self.ahead = self.ahead, None
        rows = ahead[1].result() if ahead is not None and ahead[0] == after else []
        if len(rows) < self.limit:
            rows = read_rows(after, self.limit)
        if len(rows) == self.limit:
            self.connected = True
            self.ahead = (rows[-1][0], self.pool.submit(read_rows, rows[-1][0], self.limit))
        elif self.connected:
            self.stop()
        return rows

    def stop(self) -> None:
        """Drop what is read ahead and close the thread's connection (after a read under way). The
        relay stops its reader after any error: a connection an outage broke is not used again."""
        self.ahead = None
        if self.connected:
            self.connected = False
            self.pool.submit(_close_own_connection).result()

    def close(self) -> None:
        self.stop()
        self.pool.shutdown()


def _close_own_connection() -> None:
    quietly(connection.close)  # `connection` resolved here, in the reading thread: its own session
