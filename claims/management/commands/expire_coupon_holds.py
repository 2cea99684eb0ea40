"""`python manage.py expire_coupon_holds [--every SECONDS]`: release lapsed coupon holds.

Once by default (cron); with --every it sweeps until stopped, for setups
without Celery beat. Idempotent: several sweepers at once release a hold once.
"""

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from claims.holds import expire_holds


class Command(BaseCommand):
    help = "Release one-time coupons held by carts that did not check out within COUPON_HOLD_SECONDS."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=None, metavar="SECONDS", help="sweep repeatedly")

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        if options["every"] is not None:
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, lambda *_: stop.set())
        while True:
            released = expire_holds()
            self.stdout.write(f"expire_coupon_holds: released {len(released)} hold(s)")
            if options["every"] is None or stop.wait(options["every"]):
                return
