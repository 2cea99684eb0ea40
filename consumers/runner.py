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

import psycopg
from django.conf import settings
from django.db import Error as DatabaseError
from django.db import close_old_connections, connection, transaction

from kernel.backoff import Backoff
from kernel.cleanup import quietly

from . import faults, heartbeat
from .base import Consumer
from .checkpoints import CheckpointMovedError
from .fatal import OperatorError, is_fatal
from .lease import Lease, LeaseLostError
from .transports import Interruptible, Settling, Transport, Wakeable

log = logging.getLogger(__name__)

# The database or the network away: logged in one line (no traceback), retried.
RETRYABLE: tuple[type[BaseException], ...] = (DatabaseError, psycopg.Error, OSError)


def process_batch(
    consumer: Consumer, transport: Transport, limit: int | None = None, guard: Callable[[], None] | None = None
) -> int:
    """Fetch one batch, handle it and record progress in one transaction; return its size.

    `guard` runs inside that transaction just before the progress moves (the lease's `verify`):
    if it raises, the batch rolls back and nothing of it is applied.
    """
    for _ in range(3):
        batch = transport.fetch(consumer.name, consumer.categories, limit or settings.CONSUMER_BATCH_SIZE)
        if not batch.events:
            return 0
        try:
            with transaction.atomic():
                consumer.handle(batch.events)
                if guard is not None:
                    guard()
                batch.commit()
        except CheckpointMovedError:
            # Someone moved the checkpoint between our fetch and our commit (a rebuild's
            # swap does, on purpose): the batch was rolled back; fetch again from there.
            log.info("checkpoint of %s moved under its batch; fetching again", consumer.name)
            continue
        batch.after_commit()
        first, last = batch.events[0].position, batch.events[-1].position
        log.debug("consumer %s committed %d events, positions %d..%d", consumer.name, len(batch.events), first, last)
        return len(batch.events)
    return 0


def drain(
    consumer: Consumer,
    transport: Transport,
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Process batches until nothing is left to read now; return how many events (and tell
    `progress` the running total after each batch).

    An empty fetch ends it, unless the transport cannot tell "nothing now" yet (`Settling`: a
    Kafka group member that has just joined): then it fetches again, for its `settle_seconds` at most.
    """
    total, deadline = 0, None
    while True:
        if handled := process_batch(consumer, transport, limit):
            total += handled
            if progress is not None:
                progress(total)
            continue
        if not isinstance(transport, Settling) or transport.settled():
            return total
        deadline = deadline or time.monotonic() + transport.settle_seconds
        if time.monotonic() >= deadline:
            log.warning("%s: partitions not read to their ends in %.0fs", consumer.name, transport.settle_seconds)
            return total


@dataclass
class Worker:
    """One consumer's loop, run in a thread: every touch of the database or the broker is retried.

    Fetch, handle, checkpoint, heartbeat and lease all sit inside one try: a
    failure rolls the batch back (its checkpoint did not move, so nothing is
    lost), resets the thread's connection and waits a capped, jittered
    backoff. Only a fatal error (consumers/fatal.py: FATAL) leaves the loop.
    """

    consumer: Consumer
    transport_factory: Callable[[], Transport]
    stop: threading.Event
    idle_seconds: float = field(default_factory=lambda: settings.CONSUMER_POLL_SECONDS)
    backoff: Backoff = field(default_factory=Backoff)
    failures: heartbeat.Failures = field(init=False)

    def __post_init__(self) -> None:
        self.failures = heartbeat.Failures(self.consumer.name)

    def __call__(self) -> None:
        log.info("consumer %s started", self.consumer.name)
        transport: Transport | None = None
        lease: Lease | None = None
        failing_since: float | None = None
        try:
            while not self.stop.is_set():
                try:
                    if transport is None:
                        transport = faults.wrap(self._transport(), self.consumer.name)  # the fault lab
                        lease = Lease(f"consumer:{self.consumer.name}") if transport.name == "table" else None
                        log.info("consumer %s on the %s transport", self.consumer.name, transport.name)
                    # A turn standing by says nothing of the holder's batches (the same heartbeat row).
                    if self._step(transport, lease):
                        self.failures.worked()
                except Exception as error:
                    if is_fatal(error):
                        raise
                    failing_since = failing_since or time.monotonic()
                    self._failed(error)
                    continue
                if failing_since is not None:
                    took = time.monotonic() - failing_since
                    log.info("consumer %s recovered after %.1fs of failures", self.consumer.name, took)
                    failing_since = None
                self.backoff.reset()
        finally:
            quietly(transport.close if transport else None)
            quietly(lease.release if lease else None)
            quietly(connection.close)
            log.info("consumer %s stopped", self.consumer.name)

    def _transport(self) -> Transport:
        made = self.transport_factory()
        if isinstance(made, Interruptible):
            made.interrupt_on(self.stop)
        return made

    def _step(self, transport: Transport, lease: Lease | None) -> bool:
        """One turn: the lease (taken or re-checked), a heartbeat, one batch; False when standing by."""
        close_old_connections()
        if lease is not None and not lease.acquire():
            self.stop.wait(1.0)  # another process runs this consumer; stand by
            return False
        heartbeat.beat(self.consumer.name, transport.name)
        if process_batch(self.consumer, transport, guard=lease.verify if lease else None) == 0:
            self._idle(transport)
        return True

    def _idle(self, transport: Transport) -> None:
        """Nothing to read: the table transport waits for the log's notification (consumers/wakeup.py)."""
        if isinstance(transport, Wakeable):
            transport.idle(self.stop, self.idle_seconds)
        else:
            self.stop.wait(self.idle_seconds)

    def _failed(self, error: Exception) -> None:
        pause = self.backoff.next()
        name = self.consumer.name
        if isinstance(error, LeaseLostError):
            log.warning("consumer %s lost its lease; its batch rolled back; standing by", name)
        elif isinstance(error, RETRYABLE):
            # The database or the broker is away: the batch rolled back, nothing is lost.
            line = heartbeat.first_line(error)
            log.warning("consumer %s: %s: %s; retrying in %.1fs", name, type(error).__name__, line, pause)
        elif isinstance(error, OperatorError):  # its message is what to do: no traceback to bury it
            log.warning("consumer %s: %s; retrying in %.1fs", name, heartbeat.first_line(error), pause)
        else:
            log.exception("consumer %s: batch failed; retrying in %.1fs", name, pause)
        if not isinstance(error, LeaseLostError):  # standing by is not failing
            self.failures.failed(error)
        quietly(connection.close)  # a broken connection is replaced on the next turn
        self.stop.wait(pause)


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
