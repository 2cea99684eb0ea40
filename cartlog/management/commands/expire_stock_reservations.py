"""`python manage.py expire_stock_reservations [--every SECONDS]`: release lapsed stock reservations.

A reservation lapses when its checkout died between reserving and placing the
order (inventory/reservations.py). Once by default (cron); with --every it sweeps
until stopped (`make run` runs it so) and outlives a database outage
(consumers/sweeping.py). Idempotent: a reservation is released once, and one
whose order was placed is never released (the stock stream decides, in order).
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from consumers.sweeping import sweep
from inventory.reservations import expire


class Command(BaseCommand):
    help = "Release stock reserved by checkouts that did not place their order within STOCK_RESERVATION_SECONDS."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=None, metavar="SECONDS", help="sweep repeatedly")

    def handle(self, *args: Any, **options: Any) -> None:
        sweep("expire_stock_reservations", self._sweep, options["every"])

    def _sweep(self) -> None:
        released = expire()
        self.stdout.write(f"expire_stock_reservations: released {len(released)} reservation(s)")
        self.stdout.flush()
