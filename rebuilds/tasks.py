"""Start a rebuild: in a Celery worker, or, with no broker set, in a thread of the process that asks."""

import logging
import threading
import time

import psycopg
from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from kernel.backoff import Backoff

from . import runs, service

log = logging.getLogger(__name__)


@shared_task(name="rebuilds.rebuild_projection")
def rebuild_projection(name: str, verify: bool = False, batch_size: int | None = None) -> dict[str, object]:
    """Rebuild (or verify) one projection; the run record shows progress meanwhile."""
    outcome = service.rebuild(name, verify=verify, batch_size=batch_size)
    return {
        "run_id": outcome.run_id,
        "status": outcome.status,
        "position": outcome.position,
        "events_done": outcome.events_done,
        "differences": len(outcome.differences),
    }


def start(name: str, verify: bool = False) -> threading.Thread | None:
    """Start rebuilding (or verifying) `name` and return at once: the staff page's buttons.

    With a broker the task goes to a worker. Without one (the embedded default) Celery would run
    it eagerly, inside the web request: a page that answered only when the rebuild ended (54 s at
    180k events) and showed no progress meanwhile. It runs in a thread of this process instead,
    under the same lease and run record, so the page's bar moves while it works. Through a database
    outage it resumes the run by itself once the database answers again; a process that stops
    meanwhile leaves the run resumable, as a killed `rebuild_projection` does.
    RebuildBusyError, here and now, when another process is rebuilding `name`. Returns the
    thread (None when a worker has the task).
    """
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        rebuild_projection.delay(name, verify=verify)
        return None
    if runs.in_progress(name):
        raise runs.RebuildBusyError(name)
    thread = threading.Thread(target=_in_background, args=(name, verify), name=f"rebuild-{name}", daemon=True)
    thread.start()
    return thread


# The database going away (a restart, the network): the run waits at its last committed batch.
OUTAGE = (OperationalError, InterfaceError, psycopg.OperationalError)


def _in_background(name: str, verify: bool) -> None:
    backoff = Backoff(base=1.0, cap=30.0)
    try:
        while True:
            try:
                rebuild_projection(name, verify=verify)
                return
            except OUTAGE as error:  # no one is there to click again: resume the run once it answers
                pause = backoff.next()
                log.warning("rebuild of %s: database trouble (%s); resuming in %.1fs", name, error, pause)
                connection.close()  # a broken connection is replaced on the next try
                time.sleep(pause)
    except runs.RebuildBusyError:  # started elsewhere between the check and the lease (or meanwhile)
        log.info("%s: a rebuild runs in another process", name)
    except Exception:  # a bug: the run records it (runs.fail) and the page shows it
        log.exception("rebuild of %s failed", name)
    finally:
        connection.close()  # this thread's own
