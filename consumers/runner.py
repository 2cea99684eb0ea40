"""Running consumers: one batch at a time, each batch one transaction.

`run_consumers` gives every consumer its own thread (and so its own database
connection). Consumers wait on I/O (the database, Kafka), so threads are enough
here and keep the embedded default one process; to scale out, run several
`run_consumers --only NAME` processes (Kafka consumer groups share the work).
SIGTERM/SIGINT set a stop flag; each worker finishes the batch in hand, commits,
and exits.
"""

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.db import close_old_connections, connection, transaction

from . import heartbeat
from .base import Consumer
from .checkpoints import CheckpointMovedError
from .lease import Lease
from .transports import Transport

log = logging.getLogger(__name__)


def process_batch(consumer: Consumer, transport: Transport, limit: int | None = None) -> int:
    """Fetch one batch, handle it and record progress in one transaction; return its size."""
    for _ in range(3):
        batch = transport.fetch(consumer.name, consumer.categories, limit or settings.CONSUMER_BATCH_SIZE)
        if not batch.events:
            return 0
        try:
            with transaction.atomic():
                consumer.handle(batch.events)
                batch.commit()
        except CheckpointMovedError:
            # Someone moved the checkpoint between our fetch and our commit (a rebuild's
            # swap does, on purpose): the batch was rolled back; fetch again from there.
            log.info("checkpoint of %s moved under its batch; fetching again", consumer.name)
            continue
        batch.after_commit()
        return len(batch.events)
    return 0


def drain(consumer: Consumer, transport: Transport, limit: int | None = None) -> int:
    """Process batches until nothing is left to read now; return how many events."""
    total = 0
    while handled := process_batch(consumer, transport, limit):
        total += handled
    return total


@dataclass
class Worker:
    """One consumer's loop, run in a thread by `run`."""

    consumer: Consumer
    transport_factory: Callable[[], Transport]
    stop: threading.Event
    idle_seconds: float = field(default_factory=lambda: settings.CONSUMER_POLL_SECONDS)

    def __call__(self) -> None:
        transport = self.transport_factory()
        lease = Lease(f"consumer:{self.consumer.name}") if transport.name == "table" else None
        try:
            self._loop(transport, lease)
        finally:
            transport.close()
            if lease:
                lease.release()
            connection.close()

    def _loop(self, transport: Transport, lease: Lease | None) -> None:
        log.info("consumer %s started on the %s transport", self.consumer.name, transport.name)
        while not self.stop.is_set():
            close_old_connections()
            if lease and not lease.acquire():
                self.stop.wait(1.0)  # another process runs this consumer; stand by
                continue
            heartbeat.beat(self.consumer.name, transport.name)
            try:
                handled = process_batch(self.consumer, transport)
            except Exception:
                # The batch's transaction rolled back, so its checkpoint did not move:
                # nothing is lost, the same events come again after a pause.
                log.exception("consumer %s: batch failed; retrying after a pause", self.consumer.name)
                self.stop.wait(min(30.0, 1.0 + self.idle_seconds * 10))
                continue
            if handled == 0:
                self.stop.wait(self.idle_seconds)
        log.info("consumer %s stopped", self.consumer.name)


def run(
    consumers: Sequence[Consumer], transport_factory: Callable[[], Transport], stop: threading.Event
) -> list[threading.Thread]:
    """Start one thread per consumer; they run until `stop` is set."""
    threads = []
    for consumer in consumers:
        worker = Worker(consumer=consumer, transport_factory=transport_factory, stop=stop)
        thread = threading.Thread(target=worker, name=f"consumer-{consumer.name}", daemon=True)
        thread.start()
        threads.append(thread)
    return threads


def wait(threads: Sequence[threading.Thread], stop: threading.Event) -> None:
    while any(t.is_alive() for t in threads):
        for thread in threads:
            thread.join(timeout=0.5)
        if stop.is_set():
            time.sleep(0.05)
