"""Filling the shadow: batches of the log from the run's checkpoint, each one transaction.

Each batch is read (gap-safe, `store.read_all`, one batch ahead: rebuilds.reader),
then folded into the shadow by the projection's own `apply` (or `apply_decoded`,
the same rows from a lean batch: rebuilds.reader) with the run's
checkpoint moved in the same transaction: a SIGKILL at any point leaves shadow
and checkpoint in step, and the next run resumes from there. The loop stops once a batch comes back short,
i.e. the shadow has caught up with the head as far as it is safe to read;
the last few events are taken under the swap's lock (rebuilds.finish).
"""

import threading
import time

from django.db import transaction

from eventlog import store
from projections.registry import Projection

from . import runs
from .models import RebuildRun, RunStatus
from .progress import Progress
from .reader import Reader

PASSES = 3  # aims at the head; then the lock takes the rest


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
    with Reader(tuple(projection.CATEGORIES), batch_size, lean=hasattr(projection, "apply_decoded")) as reader:
        for _ in range(PASSES):
            if not _pass(run, projection, reader, progress, stop, pause, clock):
                return False
            if store.head_position() - run.position < batch_size:
                break
    return True


def _pass(
    run: RebuildRun,
    projection: Projection,
    reader: Reader,
    progress: Progress,
    stop: threading.Event | None,
    pause: float,
    clock: tuple[float, int],
) -> bool:
    """Batches up to the head as it is when the pass begins; False if `stop` was set."""
    head = store.head_position()
    runs.set_status(run, RunStatus.BUILDING, head=head)
    while run.position < head:
        if stop and stop.is_set():
            return False
        full = _batch(run, projection, reader, *clock)
        progress.update(run)
        if not full:
            break  # nothing more is safe to read yet
        if pause:
            time.sleep(pause)
    return True


def _batch(run: RebuildRun, projection: Projection, reader: Reader, started: float, done_before: int) -> bool:
    """One batch into the shadow, with the run's checkpoint, in one transaction."""
    events = reader.read(run.position)
    if not events:
        return False
    with transaction.atomic():
        if reader.lean:  # rows of LEAN_COLUMNS, decoded here (rebuilds.reader)
            projection.apply_decoded(reader.decode(events), run.shadow_table)  # type: ignore[attr-defined]
        else:
            projection.apply(events, run.shadow_table)
        rate = (run.events_done + len(events) - done_before) / max(time.monotonic() - started, 1e-6)
        runs.record_batch(run, reader.last_position(events), len(events), rate)
    return len(events) == reader.batch_size
