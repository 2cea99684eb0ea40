"""Celery tasks of the analytics side: they call a function and return what it did, nothing more."""

from dataclasses import asdict, is_dataclass
from importlib import import_module
from importlib.util import find_spec
from typing import Any

from celery import shared_task

from .archive import archive


@shared_task
def run_analytics() -> dict[str, Any]:
    """Archive + Spark jobs + load (`analytics.pipeline.run_all`); beat runs it on a schedule.

    Until the pipeline module exists, it brings the archive up to date, the first step of the pipeline.
    """
    if find_spec("analytics.pipeline") is None:
        return {"archive": summary(archive())}
    return summary(import_module("analytics.pipeline").run_all())


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
