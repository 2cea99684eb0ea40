"""`python manage.py run_consumers`: run every registered consumer until stopped."""

import logging
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from consumers import faults, registry, runner
from consumers.supervisor import FatalError, Supervisor
from lab.holder import Holder
from rebuilds import background
from relay.relay import run_forever

log = logging.getLogger(__name__)
PROGRESS_SECONDS = 5.0  # --once on a long backlog: a line this often, not silence until each consumer is done


class Command(BaseCommand):
    help = "Run the consumers (async projections, claim validator, archiver; the relay when Kafka is set)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run only these consumers")
        parser.add_argument("--transport", choices=["table", "kafka"], default=None, help="default: kafka if set")
        parser.add_argument("--once", action="store_true", help="process what is there now, then exit")

    def _every_few_seconds(self, name: str) -> Callable[[int], None]:
        """A progress line at most every PROGRESS_SECONDS while --once works through a backlog."""
        next_line = time.monotonic() + PROGRESS_SECONDS

        def say(done: int) -> None:
            nonlocal next_line
            if time.monotonic() >= next_line:
                self.stdout.write(f"{name}: {done:,} events so far...")
                next_line = time.monotonic() + PROGRESS_SECONDS

        return say

    def handle(self, *args: Any, **options: Any) -> None:
        consumers = registry.all_consumers()
        if options["only"]:
            unknown = set(options["only"]) - {c.name for c in consumers}
            if unknown:
                raise CommandError(f"unknown consumer(s): {', '.join(sorted(unknown))}")
            consumers = [c for c in consumers if c.name in options["only"]]
        kind = options["transport"] or registry.default_transport()
        if kind == "kafka" and not settings.KAFKA_BOOTSTRAP_SERVERS:
            raise CommandError("--transport kafka needs KAFKA_BOOTSTRAP_SERVERS: there is no broker to read from.")
        transport_factory = registry.transport_factory(kind)
        if options["once"]:
            for consumer in consumers:
                count = runner.drain(consumer, transport_factory(), progress=self._every_few_seconds(consumer.name))
                self.stdout.write(f"{consumer.name}: {count} events")
            for name in background.rebuild_outdated():  # views whose code VERSION is newer (rebuilds/)
                self.stdout.write(f"{name}: rebuilt with its new version and swapped in")
            return
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        names = ", ".join(c.name for c in consumers) or "none"
        # A log record, not a line on stdout: under LOG_FORMAT=json every line of a running process is JSON.
        log.info("run_consumers: %s on the %s transport (Ctrl-C stops after the batch in hand)", names, kind)
        # Each consumer in a thread its supervisor restarts if it dies (consumers/supervisor.py).
        supervisor = Supervisor(stop)
        for consumer in consumers:
            supervisor.start(f"consumer {consumer.name}", runner.Worker(consumer, transport_factory, stop))
        if kind == "kafka" and not options["only"] and settings.KAFKA_BOOTSTRAP_SERVERS:
            # It feeds the Kafka transport; its lease keeps it single however many processes start one.
            supervisor.start("relay", lambda: faults.gated(faults.Fault.RELAY, run_forever, stop))
        if settings.LAB_ENABLED and connection.vendor == "postgresql":
            # The fault lab's "hold a transaction open" switch is obeyed here, beside the consumers.
            supervisor.start("fault lab holder", Holder(stop))
        # Beside the consumers, once: rebuild, blue/green, each view whose code VERSION is newer (rebuilds/).
        background.start(stop)
        try:
            supervisor.watch()
        except FatalError as error:
            # Only a broken deploy gets here; scripts/run.sh or the compose restart policy starts a fresh process.
            raise CommandError(str(error)) from error
