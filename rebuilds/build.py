"""Filling the shadow: batches of the log from the run's checkpoint, each one transaction.

Each batch is read (gap-safe, `store.read_all`, one batch ahead: rebuilds.reader),
folded (cart_view's `fold_decoded`, from a lean batch) and written into the
shadow with the run's checkpoint moved in the same transaction, on the
writer's thread while the next batch is folded (rebuilds.writer; a projection
with only `apply` runs it whole there). A SIGKILL at any point leaves shadow
and checkpoint in step, and the next run resumes from there. The loop stops once a batch comes back short,
i.e. the shadow has caught up with the head as far as it is safe to read;
the last few events are taken under the swap's lock (rebuilds.finish).
"""

import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, cast

from django.db import transaction

from eventlog import store
from projections.registry import Projection

from . import runs
from .collector import fewer_collections
from .models import RebuildRun, RunStatus
from .progress import Progress
from .reader import Reader
from .writer import Writer

PASSES = 3  # aims at the head; then the lock takes the rest
# Another pass runs while more events than this are left behind the head: the swap takes
# what is left under a lock that holds every append, so how long it holds them does not
# grow with the batch size (batches are large to write fewer rows: REBUILD_BATCH_SIZE).
LOCKED_TAIL = 1_000


class LeanProjection(Projection, Protocol):
    """A projection with `apply_decoded` (cart_view), in its two halves: fold, then write."""

    def fold_decoded(self, events: Sequence[Any], table: str = ..., *, before: Any = ...) -> Any: ...
    def write_folded(self, folded: Any, table: str = ...) -> None: ...


def catch_up(
    run: RebuildRun,
    projection: Projection,
    batch_size: int,
    progress: Progress,
    stop: threading.Event | None = None,
    pause: float = 0.0,
) -> bool:
    """Fill the shadow up to (about) the head; False if `stop` was set first.

    Each pass aims at the head as it was when the pass began, so a shop that
    writes faster than the rebuild reads cannot keep it running forever; what
    the last pass leaves is taken under the swap's lock. `pause` seconds
    between batches leave room to a busy shop's own writes.
    """
    clock = (time.monotonic(), run.events_done)
    progress.start(run, store.head_position())
    lean = hasattr(projection, "apply_decoded")
    with fewer_collections(), Reader(tuple(projection.CATEGORIES), batch_size, lean=lean) as reader, Writer() as writer:
        for _ in range(PASSES):
            head = store.head_position()
            done = _pass(_Batches(run, projection, reader, writer, clock), head, progress, stop, pause)
            writer.wait()  # the pass's last batch is committed: run.position is where the shadow stands
            if not done:
                return False
            # Shown once more now that the last batch is in: up to the pass's head, whatever its last event.
            progress.update(run, scanned=head)
            if store.head_position() - run.position < min(batch_size, LOCKED_TAIL):
                break
    return True


def _pass(batches: "_Batches", head: int, progress: Progress, stop: threading.Event | None, pause: float) -> bool:
    """Batches up to `head`, the head as it was when the pass began; False if `stop` was set."""
    runs.set_status(batches.run, RunStatus.BUILDING, head=head, error="")  # a resumed run is no longer failing
    while batches.after < head:
        if stop and stop.is_set():
            return False
        full = batches.next()
        progress.update(batches.run)
        if not full:
            break  # nothing more is safe to read yet
        if pause:
            time.sleep(pause)
    return True


class _Batches:
    """The batches of one pass: each read (one ahead), folded here, and written with the
    run's checkpoint in one transaction by the writer (rebuilds.writer) while the next is
    folded. `after` is the position handed to the writer; `run.position` the one committed."""

    def __init__(
        self, run: RebuildRun, projection: Projection, reader: Reader, writer: Writer, clock: tuple[float, int]
    ):
        self.run, self.projection, self.reader, self.writer, self.clock = run, projection, reader, writer, clock
        self.after = run.position
        self.folded: Any = None  # the batch before, as the projection folded it (lean only)

    def next(self) -> bool:
        """One batch on its way into the shadow; False when it was not full (or empty)."""
        events = self.reader.read(self.after)
        if not events:
            return False
        table = self.run.shadow_table
        if self.reader.lean:  # rows of LEAN_COLUMNS, decoded here (rebuilds.reader)
            lean = cast(LeanProjection, self.projection)
            self.folded = lean.fold_decoded(self.reader.decode(events), table, before=self.folded)
            write: Callable[[], None] = partial(lean.write_folded, self.folded, table)
        else:  # `apply` reads the rows it continues from: it runs in the writer's thread, after the write before
            write = partial(self.projection.apply, events, table)
        last = self.reader.last_position(events)
        self.writer.submit(partial(self._commit, write, last, len(events)))
        self.after = last
        return len(events) == self.reader.batch_size

    def _commit(self, write: Callable[[], None], last: int, count: int) -> None:
        """In the writer's thread: the batch's rows and the run's checkpoint, in one transaction."""
        started, done_before = self.clock
        with transaction.atomic():
            write()
            rate = (self.run.events_done + count - done_before) / max(time.monotonic() - started, 1e-6)
            runs.record_batch(self.run, last, count, rate)
