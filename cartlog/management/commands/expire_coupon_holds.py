"""`python manage.py expire_coupon_holds [--every SECONDS]`: release lapsed coupon holds.

Once by default (cron); with --every it sweeps until stopped, for setups
without Celery beat (`make run` runs it so). Idempotent: several sweepers at
once release a hold once. Like the consumers, the repeating sweep outlives a
database outage: a failed sweep is logged and tried again after a capped,
jittered backoff; only an error no retry can fix ends the process.
"""

import logging
import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

from claims.holds import expire_holds
from consumers.backoff import Backoff, is_fatal

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Release one-time coupons held by carts that did not check out within COUPON_HOLD_SECONDS."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=None, metavar="SECONDS", help="sweep repeatedly")

    def handle(self, *args: Any, **options: Any) -> None:
        every: float | None = options["every"]
        if every is None:
            self._sweep()
            return
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        backoff = Backoff()
        while not stop.is_set():
            try:
                close_old_connections()  # a connection the outage broke is not reused
                self._sweep()
            except Exception as error:
                if is_fatal(error):
                    raise
                wait = backoff.next()
                log.warning("expire_coupon_holds: sweep failed (%s); retrying in %.1fs", error, wait)
                stop.wait(wait)
                continue
            backoff.reset()
            stop.wait(every)

    def _sweep(self) -> None:
        released = expire_holds()
        self.stdout.write(f"expire_coupon_holds: released {len(released)} hold(s)")
        self.stdout.flush()
