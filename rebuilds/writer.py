"""Writing a rebuild's batches in a thread of their own, while the next one is folded.

A rebuild of cart_view spent about a third of its wall time waiting for
PostgreSQL to upsert a batch and commit it, while Python, its bottleneck,
waited too. The writer takes a batch's write and runs it with the run's
checkpoint in one transaction on a connection of its own (rebuilds.build):
shadow and checkpoint stay in step as before. One write is in flight at a
time, and the next is handed over only once the one before has committed, so
the folding thread may read any row of the shadow except those of the batch
in flight, which it keeps itself (`cart_view.fold_decoded`'s `before`).
"""

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from .reader import close_own_connection


class Writer:
    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebuild-write")
        self.pending: Future[None] | None = None

    def submit(self, write: Callable[[], None]) -> None:
        """Run `write` in the writer's thread once the write before has committed (its error is raised here)."""
        self.wait()
        self.pending = self.pool.submit(write)

    def wait(self) -> None:
        """Until the last write has finished; raises what it raised."""
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, error: type[BaseException] | None, *rest: Any) -> None:
        try:
            if error is None:
                self.wait()
        finally:  # after the write in flight, if any: one thread, one queue
            self.pool.submit(close_own_connection).result()
            self.pool.shutdown()
