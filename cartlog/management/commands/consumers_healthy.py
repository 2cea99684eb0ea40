"""`python manage.py consumers_healthy`: exit 0 only if every expected consumer beat recently.

The container healthcheck of `run_consumers` and `run_relay` (docker-compose.yml).
A consumer beats each turn of its loop while it holds its lease
(consumers/heartbeat.py); one that died, hangs, or cannot reach the database
falls silent and this fails, naming it.
"""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import Error as DatabaseError

from consumers import heartbeat, registry
from relay.relay import NAME as RELAY


class Command(BaseCommand):
    help = "Exit non-zero unless every registered consumer (or each --only NAME) has a fresh heartbeat."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--only", action="append", default=[], metavar="NAME", help="check only these (relay too)")

    def handle(self, *args: Any, **options: Any) -> None:
        consumers = [consumer.name for consumer in registry.all_consumers()]
        known = [*consumers, RELAY]
        unknown = sorted(set(options["only"]) - set(known))
        if unknown:  # it would never beat: say so, not "no heartbeat"
            raise CommandError(f"unknown consumer(s): {', '.join(unknown)} (known: {', '.join(known)})")
        names = options["only"] or consumers
        try:
            silent = heartbeat.silent(names)
        except DatabaseError as error:
            raise CommandError(f"cannot read heartbeats: {error}") from error
        if silent:
            raise CommandError(
                f"no heartbeat in the last {settings.CONSUMER_STALE_AFTER_SECONDS:.0f}s from: {', '.join(silent)}"
            )
        self.stdout.write(f"healthy: {', '.join(names)}")
