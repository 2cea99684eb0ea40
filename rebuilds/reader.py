"""Reading the log one batch ahead, in a thread of its own, while the rebuild applies the last.

A rebuild alternates between waiting for PostgreSQL (the read, the upsert, the
commit) and folding in Python; reading batch n+1 on a second connection while
batch n is applied and committed overlaps the two. The read needs no
transaction of ours: `store.read_all` is gap-safe on any connection, and a
batch is fixed by the position it starts after.
"""

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import connection

from eventlog import store
from eventlog.records import RecordedEvent


class Reader:
    def __init__(self, categories: tuple[str, ...], batch_size: int) -> None:
        self.categories, self.batch_size = categories, batch_size
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebuild-read")
        self.ahead: tuple[int, Future[list[RecordedEvent]]] | None = None

    def read(self, after: int) -> list[RecordedEvent]:
        """The batch after `after`; when it is full, the next one is on its way already."""
        if self.ahead is None or self.ahead[0] != after:
            self.ahead = (after, self.pool.submit(self._read, after))
        events = self.ahead[1].result()
        full = len(events) == self.batch_size
        self.ahead = (events[-1].position, self.pool.submit(self._read, events[-1].position)) if full else None
        return events

    def _read(self, after: int) -> list[RecordedEvent]:
        return store.read_all(after, self.batch_size, categories=self.categories)

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.pool.submit(_close_own_connection).result()
        self.pool.shutdown()


def _close_own_connection() -> None:
    connection.close()  # resolved in the calling thread: the reader's own connection
