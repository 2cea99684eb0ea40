"""Rebuild one projection: resume or start a run, fill the shadow, then swap or verify.

    rebuild("cart_view")                 # build beside the live table, catch up, swap
    rebuild("cart_view", verify=True)    # build, catch up, compare; the live table stays

The same function runs from `manage.py rebuild_projection`, the Celery task,
and `run_consumers` when a projection's VERSION is newer than its live table.
"""

import threading
from dataclasses import dataclass, field

from django.conf import settings

from projections import registry

from . import build, finish, runs
from .models import RunStatus
from .progress import Progress, Silent
from .verify import RowDifference, explain


@dataclass(frozen=True)
class RebuildOutcome:
    run_id: int
    status: RunStatus  # SWAPPED, VERIFIED, DIFFERS, or STOPPED (resumable)
    position: int
    events_done: int
    differences: list[RowDifference] = field(default_factory=list)


def rebuild(
    name: str,
    *,
    verify: bool = False,
    batch_size: int | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    pause: float = 0.0,
) -> RebuildOutcome:
    projection = registry.get(name)
    progress = progress or Silent()
    lease = runs.take_lease(name)
    run = None
    try:
        run = runs.resume_or_start(projection)
        size = batch_size or settings.REBUILD_BATCH_SIZE
        if not build.catch_up(run, projection, size, progress, stop, pause):
            runs.set_status(run, RunStatus.STOPPED)
            return RebuildOutcome(
                run_id=run.id, status=RunStatus.STOPPED, position=run.position, events_done=run.events_done
            )
        differences: list[RowDifference] = []
        if verify:
            differences, position = finish.compare(run, projection)
            # The events behind each row are read after the compare's transaction: appends wait for that only.
            differences = explain(projection, differences, position)
        else:
            finish.swap(run, projection)
        return RebuildOutcome(
            run_id=run.id,
            status=RunStatus(run.status),
            position=run.position,
            events_done=run.events_done,
            differences=differences,
        )
    except Exception as error:
        if run is not None:
            runs.fail(run, error)
        raise
    except KeyboardInterrupt:  # Ctrl-C: no longer "building" (with an ETA) on the status page
        if run is not None:
            runs.stopped(run)
        raise
    finally:
        progress.close()
        lease.release()
