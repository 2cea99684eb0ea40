"""A sweep run once (cron) or every N seconds until stopped (`make run`, setups without Celery beat).

The repeating sweep outlives a database outage like the consumers do: a failed
sweep is logged and tried again after a capped, jittered backoff; only an error
no retry can fix (consumers/fatal.py: FATAL) ends the process. Used by
`expire_coupon_holds` and `expire_stock_reservations`.
"""

import logging
import signal
import threading
from collections.abc import Callable

from django.db import close_old_connections

from kernel.backoff import Backoff

from .fatal import is_fatal

log = logging.getLogger(__name__)


def sweep(name: str, once: Callable[[], None], every: float | None) -> None:
    """`once()` now, or every `every` seconds until SIGTERM/SIGINT."""
    if every is None:
        once()
        return
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    backoff = Backoff()
    while not stop.is_set():
        try:
            close_old_connections()  # a connection the outage broke is not reused
            once()
        except Exception as error:
            if is_fatal(error):
                raise
            wait = backoff.next()
            log.warning("%s: sweep failed (%s); retrying in %.1fs", name, error, wait)
            stop.wait(wait)
            continue
        backoff.reset()
        stop.wait(every)
