"""One pipeline run at a time, across every process (Celery workers, `run_spark_jobs`), and no
run that another has already answered.

Two runs at once would fight over the cluster's cores (the second waits for
resources the first holds) and over the read tables. The lock is a lease of
consumers/lease.py: a PostgreSQL advisory lock on a session of its own (it dies
with the process, however that dies) or, on SQLite, a row that lapses after
`ttl` seconds (the hard time limit, so a killed run frees it in time).

A run asked for at `queued_at` (beat stamps its messages: cartlog/celery.py)
that finds the read tables loaded after that moment has nothing left to do: a
run that was in progress, or started since, covers what it was asked for. On a
worker busy with a run longer than ANALYTICS_INTERVAL_SECONDS, the runs beat
queued meanwhile would otherwise start one after another as soon as it ends.
"""

import contextlib
from collections.abc import Iterator
from datetime import datetime

from django.conf import settings
from django.db.models import Max

from consumers.lease import Lease, held_by_anyone

from . import models as read_tables

NAME = "analytics-pipeline"


class PipelineBusyError(Exception):
    """Another pipeline run holds the lock, or loaded the read tables after this one was asked for; this one did
    nothing."""


@contextlib.contextmanager
def exclusive_run(queued_at: datetime | None = None) -> Iterator[None]:
    """Hold the pipeline lock for the block; PipelineBusyError at once if another run holds it or, for a run
    asked for at `queued_at`, if the read tables were loaded since."""
    lease = Lease(NAME, ttl=float(settings.ANALYTICS_HARD_TIME_LIMIT), waits=False)
    if not lease.acquire():
        raise PipelineBusyError("another analytics pipeline run is in progress; this one is skipped")
    try:
        # Under the lock: no run can load the tables between this check and this run's own start.
        if reason := answered_already(queued_at, last_loaded()):
            raise PipelineBusyError(reason)
        yield
    finally:
        lease.release()


def answered_already(queued_at: datetime | None, loaded_at: datetime | None) -> str | None:
    """Why a run asked for at `queued_at` has nothing to do when the read tables were loaded at `loaded_at`."""
    if queued_at is None or loaded_at is None or loaded_at <= queued_at:
        return None
    return (
        f"it was queued at {queued_at.isoformat()} and a run that ended at {loaded_at.isoformat()} covers it "
        "(it was in progress, or started since); this one is skipped"
    )


def last_loaded() -> datetime | None:
    """When the last complete run loaded the read tables (every table of a run has the same `computed_at`)."""
    loaded: datetime | None = read_tables.Summary.objects.aggregate(at=Max("computed_at"))["at"]
    return loaded


def in_progress() -> bool:
    """Whether some process holds the pipeline lock now (a run is in progress), without taking it: taking it even
    for a moment would make a run that starts then skip itself as busy."""
    return held_by_anyone(NAME)
