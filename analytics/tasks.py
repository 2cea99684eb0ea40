"""Celery tasks of the analytics side: they call a function and return what it did, nothing more.

The pipeline task has soft and hard time limits (ANALYTICS_SOFT_TIME_LIMIT,
ANALYTICS_HARD_TIME_LIMIT) and runs under the pipeline lock (analytics/run_lock.py):
a second run while one is in progress is skipped, and so is a run that waited in the
queue while another ran (its message's `queued_at`, cartlog/celery.py); its result and
one WARNING line say so. A run that finds the read tables already covering the log's
head is skipped too (one INFO line): nothing was appended since, so Spark would compute
the same rows again (about a minute of CPU per interval on an idle shop). After a fix to
a Spark job, `manage.py run_spark_jobs` runs the pipeline whatever the log holds.
"""

import contextlib
import logging
from dataclasses import asdict, is_dataclass
from datetime import UTC, datetime
from typing import Any

from celery import Task, shared_task
from django.conf import settings

from .archive import archive
from .run_lock import PipelineBusyError, exclusive_run

log = logging.getLogger(__name__)


@shared_task(
    bind=True, soft_time_limit=settings.ANALYTICS_SOFT_TIME_LIMIT, time_limit=settings.ANALYTICS_HARD_TIME_LIMIT
)
def run_analytics(self: Task) -> dict[str, Any]:
    """Archive + Spark jobs + load (`analytics.pipeline.run_all`); beat runs it on a schedule."""
    from .pipeline import run_all  # pyspark and pyarrow only in the process that runs it
    from .spark_console import jvm_stderr_logged

    queued_at = queued_time(getattr(self.request, QUEUED_AT, None))
    asked = {"queued_at": queued_at.isoformat()} if queued_at else {}
    # Under LOG_FORMAT=json the Spark driver's lines (log4j's pattern, the JVM's notes) become records too.
    jvm_lines = jvm_stderr_logged() if settings.LOG_FORMAT == "json" else contextlib.nullcontext()
    try:
        with exclusive_run(queued_at):
            if (covered := up_to_date()) is not None:
                log.info("run_analytics skipped: the read tables already cover the log's head (position %d)", covered)
                return {"skipped": f"nothing appended since the last run (position {covered})", **asked}
            with jvm_lines:
                return {**summary(run_all()), **asked}
    except PipelineBusyError as busy:
        log.warning("run_analytics skipped: %s", busy)
        return {"skipped": str(busy), **asked}


def up_to_date() -> int | None:
    """The log's head if the analytics read tables were loaded through it; None if there is more to
    read, or nothing was loaded yet."""
    from eventlog import store

    from .queries import summary as loaded

    last = loaded()
    if last["computed_at"] is None:
        return None
    head = store.head_position()
    return head if int(last["covers_position"]) >= head else None


QUEUED_AT = "queued_at"  # the message header with the time it was sent (cartlog/celery.py stamps it)


def queued_time(header: object) -> datetime | None:
    """The header's epoch seconds as a time; None for a message without it (one sent before it existed)."""
    return datetime.fromtimestamp(header, UTC) if isinstance(header, int | float) else None


@shared_task
def archive_events() -> dict[str, Any]:
    """Bring the Parquet event archive up to date with the log."""
    return summary(archive())


def summary(result: object) -> dict[str, Any]:
    """A JSON-friendly account of a run, for the result backend and the logs."""
    if is_dataclass(result) and not isinstance(result, type):
        return asdict(result)
    if isinstance(result, dict):
        return result
    return {"result": None if result is None else str(result)}
