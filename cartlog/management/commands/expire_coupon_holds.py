"""`python manage.py expire_coupon_holds [--every SECONDS]`: release lapsed coupon holds.

Once by default (cron); with --every it sweeps until stopped, for setups
without Celery beat (`make run` runs it so), and outlives a database outage
(consumers/sweeping.py). Idempotent: several sweepers at once release a hold once.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from claims.holds import expire_holds
from consumers.sweeping import sweep


class Command(BaseCommand):
    help = "Release one-time coupons held by carts that did not check out within COUPON_HOLD_SECONDS."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=None, metavar="SECONDS", help="sweep repeatedly")

    def handle(self, *args: Any, **options: Any) -> None:
        sweep("expire_coupon_holds", self._sweep, options["every"])

    def _sweep(self) -> None:
        released = expire_holds()
        self.stdout.write(f"expire_coupon_holds: released {len(released)} hold(s)")
        self.stdout.flush()
