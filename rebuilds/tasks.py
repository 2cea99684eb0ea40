"""Start a rebuild: in a Celery worker, or, with no broker set, in a thread of the process that asks."""

import logging
import threading

from celery import shared_task
from django.conf import settings
from django.db import connection

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
    under the same lease and run record, so the page's bar moves while it works; a process that
    stops meanwhile leaves the run resumable, as a killed `rebuild_projection` does.
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


def _in_background(name: str, verify: bool) -> None:
    try:
        rebuild_projection(name, verify=verify)
    except runs.RebuildBusyError:  # started elsewhere between the check and the lease
        log.info("%s: a rebuild started in another process first", name)
    except Exception:  # the run records it (runs.fail), and the page shows it
        log.exception("rebuild of %s failed", name)
    finally:
        connection.close()  # this thread's own
