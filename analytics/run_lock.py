"""One pipeline run at a time, across every process (Celery workers, `run_spark_jobs`).

Two runs at once would fight over the cluster's cores (the second waits for
resources the first holds) and over the read tables. The lock is a lease of
consumers/lease.py: a PostgreSQL advisory lock on a session of its own (it dies
with the process, however that dies) or, on SQLite, a row that lapses after
`ttl` seconds (the hard time limit, so a killed run frees it in time).
"""

import contextlib
from collections.abc import Iterator

from django.conf import settings

from consumers.lease import Lease

NAME = "analytics-pipeline"


class PipelineBusyError(Exception):
    """Another pipeline run holds the lock; this one did nothing."""


@contextlib.contextmanager
def exclusive_run() -> Iterator[None]:
    """Hold the pipeline lock for the block; PipelineBusyError at once if another run holds it."""
    lease = Lease(NAME, ttl=float(settings.ANALYTICS_HARD_TIME_LIMIT))
    if not lease.acquire():
        raise PipelineBusyError("another analytics pipeline run is in progress; this one is skipped")
    try:
        yield
    finally:
        lease.release()
