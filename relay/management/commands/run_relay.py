"""`python manage.py run_relay`: move the committed log to Kafka until stopped."""

import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from consumers import faults
from relay.relay import run_forever


class Command(BaseCommand):
    help = "Relay the committed event log to Kafka (needs KAFKA_BOOTSTRAP_SERVERS)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.KAFKA_BOOTSTRAP_SERVERS:
            raise CommandError("KAFKA_BOOTSTRAP_SERVERS is not set: there is no broker to relay to.")
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        # No banner of its own: run_forever logs "relay started: ... -> <broker>" through logging, in the
        # process's LOG_FORMAT (a text line here was the one line of a LOG_FORMAT=json relay that was not JSON).
        # It retries the database, the broker and its lease by itself; only a fatal error (a broken deploy)
        # ends it, and then scripts/run.sh or the compose restart policy starts a fresh process.
        faults.gated(faults.Fault.RELAY, run_forever, stop)  # the fault lab can stop it (docs/fault-lab.md)
