"""Versioned projections: `run_consumers` rebuilds, blue/green, every view whose code is newer.

When a projection's VERSION is above the version that built its live table,
a background thread rebuilds it into a shadow table while the old table keeps
serving (and, for an async view, its consumer keeps updating it); the swap
puts the new table live once it has caught up. One rebuild at a time, so the
shop's own writes keep most of the machine.
"""

import logging
import threading

from django.db import connection

from projections.registry import Projection

from . import code_versions, service
from .models import RunStatus
from .runs import RebuildBusyError

log = logging.getLogger(__name__)


def rebuild_outdated(stop: threading.Event | None = None) -> list[str]:
    """Rebuild each out-of-date projection in turn; return the names swapped in."""
    swapped = []
    for projection in code_versions.all_outdated():
        if stop and stop.is_set():
            break
        if _rebuild(projection, stop):
            swapped.append(projection.NAME)
    return swapped


def _rebuild(projection: Projection, stop: threading.Event | None) -> bool:
    stored = code_versions.stored(projection.NAME)
    log.info("rebuilding %s: code version %s, live table version %s", projection.NAME, projection.VERSION, stored)
    try:
        outcome = service.rebuild(projection.NAME, stop=stop)
    except RebuildBusyError:
        log.info("%s is being rebuilt by another process", projection.NAME)
        return False
    log.info("%s: %s at position %s", projection.NAME, outcome.status, outcome.position)
    return outcome.status == RunStatus.SWAPPED


def start(stop: threading.Event) -> list[threading.Thread]:
    """The background rebuilder `run_consumers` runs beside its consumers."""

    def work() -> None:
        try:
            rebuild_outdated(stop)
        except Exception:
            log.exception("background rebuild failed; it resumes on the next start")
        finally:
            connection.close()

    thread = threading.Thread(target=work, name="rebuild-outdated", daemon=True)
    thread.start()
    return [thread]
