"""Running consumers say so: one row per consumer, refreshed every few seconds."""

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from .models import Heartbeat

log = logging.getLogger(__name__)
_last: dict[str, float] = {}


def beat(name: str, transport: str) -> None:
    now = time.monotonic()
    if now - _last.get(name, 0.0) < settings.CONSUMER_HEARTBEAT_SECONDS:
        return
    Heartbeat.objects.update_or_create(
        name=name, defaults={"transport": transport, "beat_at": timezone.now(), "pid": os.getpid()}
    )
    _last[name] = now  # only once written: a beat lost to an outage is tried again at once


def failing(name: str, error: str) -> None:
    """A consumer whose batch failed says why, until one succeeds (`recovered`): it keeps beating
    through a failure that repeats (an archive folder of another log, a bug in a projection), and
    only this tells it from one that works (GET /api/projections, /health/ready, /metrics)."""
    Heartbeat.objects.filter(name=name).update(failing=error[:500], failing_since=Coalesce("failing_since", Now()))


def recovered(name: str) -> None:
    Heartbeat.objects.filter(name=name).update(failing="", failing_since=None)


@dataclass
class Failures:
    """What one loop (a consumer's worker, the relay) says of its batches in its heartbeat row.

    `failed` after a turn that failed, `worked` after one that worked: only the first turn that works
    after a failure writes (a turn standing by for another process's lease calls neither). It starts out
    having said so, since a process before this one may have left the row failing (stopped while failing,
    or started on a wrong setting).
    """

    name: str
    said: bool = True

    def failed(self, error: BaseException, line: str | None = None) -> None:
        """Record '<Class>: <line>' (its first line by default; ops/health.py: said reads that shape). With
        the database away this write fails too: quietly, the error itself is logged by the loop."""
        self.said = True
        try:
            failing(self.name, f"{type(error).__name__}: {first_line(error) if line is None else line}")
        except Exception:
            log.debug("could not record that %s fails", self.name, exc_info=True)

    def worked(self) -> None:
        """Called inside the loop's try: if the database is away again, this turn fails instead."""
        if self.said:
            recovered(self.name)
            self.said = False


def first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0]


def failures(names: Sequence[str]) -> dict[str, tuple[str, datetime | None]]:
    """{name: (its last error, failing since)} of those of `names` whose batches fail."""
    rows = Heartbeat.objects.filter(name__in=names).exclude(failing="")
    return {name: (error, since) for name, error, since in rows.values_list("name", "failing", "failing_since")}


def running(name: str) -> tuple[bool, str | None]:
    """(running, transport) as the last heartbeat says."""
    row = Heartbeat.objects.filter(name=name).first()
    if row is None:
        return False, None
    return (timezone.now() - row.beat_at).total_seconds() < settings.CONSUMER_STALE_AFTER_SECONDS, row.transport


def silent(names: Sequence[str]) -> list[str]:
    """Those of `names` without a fresh heartbeat (health checks: docker, `manage.py consumers_healthy`)."""
    return [name for name in names if not running(name)[0]]
