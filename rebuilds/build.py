"""Filling the shadow: batches of the log from the run's checkpoint, each one transaction.

Each batch is read (gap-safe, `store.read_all`), folded into the shadow by the
projection's own `apply`, and the run's checkpoint moved, all in one
transaction: a SIGKILL at any point leaves shadow and checkpoint in step, and
the next run resumes from there. The loop stops once a batch comes back short,
i.e. the shadow has caught up with the head as far as it is safe to read;
the last few events are taken under the swap's lock (rebuilds.finish).
"""

import threading
import time
from typing import Any

from django.db import transaction

from eventlog import store

from . import runs
from .models import RebuildRun
from .progress import Progress

PASSES = 3  # aims at the head; then the lock takes the rest


def catch_up(
    run: RebuildRun,
    projection: Any,
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
    started, done_before = time.monotonic(), run.events_done
    progress.start(run, store.head_position())
    for _ in range(PASSES):
        head = store.head_position()
        runs.set_status(run, "building", head=head)
        while run.position < head:
            if stop and stop.is_set():
                return False
            full = _batch(run, projection, batch_size, started, done_before)
            progress.update(run)
            if not full:
                break  # nothing more is safe to read yet
            if pause:
                time.sleep(pause)
        if store.head_position() - run.position < batch_size:
            break
    return not (stop and stop.is_set())


def _batch(run: RebuildRun, projection: Any, batch_size: int, started: float, done_before: int) -> bool:
    """One batch into the shadow, with the run's checkpoint, in one transaction."""
    with transaction.atomic():
        events = store.read_all(run.position, batch_size, categories=projection.CATEGORIES)
        if not events:
            return False
        projection.apply(events, run.shadow_table)
        rate = (run.events_done + len(events) - done_before) / max(time.monotonic() - started, 1e-6)
        runs.record_batch(run, events[-1].position, len(events), rate)
    return len(events) == batch_size
