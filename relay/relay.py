"""The relay loop: read committed events after the checkpoint, produce, confirm, advance.

The checkpoint moves only over the longest run of events whose delivery the
broker confirmed (acks=all), in the same order they were read; a few batches are
in flight while the next is read and produced, and they settle in order. After a crash
or an outage, everything after the checkpoint is sent again: consumers see an
event at least once, never zero times, and drop repeats (relay/kafka_transport.py).
"""

import logging
import threading
import time
from bisect import bisect_left
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg
from confluent_kafka import KafkaError, KafkaException, Message, Producer
from django.conf import settings
from django.db import Error as DatabaseError
from django.db import close_old_connections, connection, transaction

from consumers import checkpoints, heartbeat
from consumers.fatal import is_fatal
from consumers.lease import Lease, LeaseLostError
from kernel.backoff import Backoff
from kernel.cleanup import quietly

from . import config
from .contract import Headers, from_message, messages
from .reader import Reader, Rows
from .topics import ensure_topics

log = logging.getLogger(__name__)
NAME = "relay"
# Batches produced and not yet settled. One would do if acks came back within a read; on a
# busy broker they take longer (Tansu: ~50 ms), and a deeper window kept it fed (docs/benchmarks.md).
IN_FLIGHT = 4
DeliveryReport = Callable[[KafkaError | None, Message], None]
# Serve delivery reports every so many messages produced, not after each one (a call per event saved).
POLL_EVERY = 1000
# How long a new producer's first metadata request may take (a broker that is up answers in milliseconds).
CONNECT_WAIT = 1.0


class DeliveryIncompleteError(Exception):
    """Some events of a batch were not confirmed; the checkpoint stopped before them."""


@dataclass(eq=False)
class Batch:
    """Events handed to the producer, and what the broker has said about them so far."""

    after: int  # the checkpoint this batch starts after
    positions: list[int]  # of its events, in log order
    failed: list[int] = field(default_factory=list)  # positions whose delivery failed
    failure: KafkaError | None = None  # the first delivery error: what the operator is told
    waiting: int = 0  # deliveries not yet reported, confirmed or failed

    def on_delivery(self, error: KafkaError | None, message: Message) -> None:
        """A delivery report: one per message, confirmed (acks=all) unless `error`. The position
        of a failed one is read back from its value: no per-message state on the way out."""
        self.waiting -= 1
        if error is not None:
            position = from_message(message.value() or b"{}").position
            self.failed.append(position)
            self.failure = self.failure or error
            log.warning("relay: delivery of position %d failed: %s", position, error)

    def last_confirmed(self) -> int:
        """The end of the longest confirmed run from the start (once nothing is waiting)."""
        if not self.failed:
            return self.positions[-1]
        first_failed = bisect_left(self.positions, min(self.failed))
        return self.positions[first_failed - 1] if first_failed else self.after


class Relay:
    def __init__(self, batch_size: int | None = None) -> None:
        self.batch_size = batch_size or settings.RELAY_BATCH_SIZE
        self.producer = Producer(config.producer())
        self.connected: Producer | None = None  # the producer `_connect_producer` last started
        self.topics_ready = False
        self.in_flight: deque[Batch] = deque()  # produced, oldest first, deliveries not yet settled
        self.reader = Reader(self.batch_size)
        self.stop: threading.Event | None = None  # run()'s: it ends a wait for the broker's metadata

    def relay_batch(self, guard: Callable[[], None] | None = None) -> int:
        """Read and produce the next batch; settle the oldest in flight once IN_FLIGHT are (or
        when there is nothing new). Return how many events moved (0: nothing to send or settle).

        New batches are read and produced while the broker is still acking older ones
        (stop-and-wait cost the relay half its time: docs/benchmarks.md, relay); batches
        settle in the order they were read, so the checkpoint still moves only over a
        confirmed prefix. `guard` (the lease's `verify`) runs in the checkpoint's
        transaction just before it moves. After any error nothing stays in flight (nor
        read ahead): the next call reads again from the checkpoint, and every batch after
        the failed one is sent again too.
        """
        try:
            return self._relay_batch(guard)
        except BaseException:
            self.reader.stop()
            raise

    def _relay_batch(self, guard: Callable[[], None] | None) -> int:
        if self.connected is not self.producer:  # a new one (the recovery replaces it)
            self._connect_producer()
        if not self.topics_ready:
            ensure_topics(stop=self.stop)
            self.topics_ready = True
        in_flight, self.in_flight = self.in_flight, deque()  # stays empty if anything below raises
        after = in_flight[-1].positions[-1] if in_flight else checkpoints.position(NAME)
        rows = self.reader.read(after)
        if rows:
            in_flight.append(self._produce_batch(after, rows))
        moved = len(rows)
        while in_flight and (len(in_flight) > IN_FLIGHT or not rows):
            settled = in_flight.popleft()
            self._settle(settled, guard)
            moved = moved or len(settled.positions)
        self.in_flight = in_flight
        return moved

    def _connect_producer(self) -> None:
        """Have a new producer start connecting to the broker now, before the first read.

        An idempotent producer sends nothing until it has its producer id, and librdkafka asks
        for it on a timer once a broker connection is up. A producer whose first connection
        waited for the first batch to be read and produced got its first ack a second after it
        was made; one that connects at once, a tenth to a half of that (docs/benchmarks.md, relay).
        A metadata request starts the connection; its answer does not matter, so a broker
        that is down or slow is not waited for here: producing reports it as before.
        """
        self.connected = self.producer
        try:
            self.producer.list_topics(timeout=CONNECT_WAIT)
        except KafkaException as error:
            log.debug("relay: the producer's first metadata request: %s", error)

    def _produce_batch(self, after: int, rows: Rows) -> Batch:
        """Produce the messages of `rows` (MESSAGE_COLUMNS), in log order."""
        batch = Batch(after=after, positions=[row[0] for row in rows], waiting=len(rows))
        topics: dict[str, str] = {}
        produce, on_delivery = self.producer.produce, batch.on_delivery
        for n, (key, value, headers) in enumerate(messages(rows), start=1):
            category = key.split("-", 1)[0]  # RecordedEvent.category
            topic = topics.get(category) or topics.setdefault(category, config.topic(category))
            try:
                produce(topic, value, key, on_delivery=on_delivery, headers=headers)
            except BufferError:
                self._produce_when_room(topic, key, value, headers, on_delivery)
            if n % POLL_EVERY == 0:
                self.producer.poll(0)
        self.producer.poll(0)
        return batch

    def _settle(self, batch: Batch, guard: Callable[[], None] | None) -> None:
        """Wait for every delivery report of `batch`, then move the checkpoint over its confirmed prefix."""
        # Every message is confirmed or has failed within message.timeout.ms: re-sending
        # while some are still in flight would only multiply duplicates.
        next_warning = time.monotonic() + 1.0
        while batch.waiting > 0:
            # Short waits: with poll(0.1) the acks of a batch were seen twice as late (measured,
            # docs/benchmarks.md, relay); 5 ms costs nothing once they are in.
            self.producer.poll(0.005)
            if batch.waiting > 0 and time.monotonic() >= next_warning:
                log.warning("relay: %d messages still waiting for the broker", batch.waiting)
                next_warning += 1.0
        last = batch.last_confirmed()
        if last > batch.after:
            with transaction.atomic():
                if guard is not None:
                    guard()
                checkpoints.advance(NAME, batch.after, last)
            log.debug("relay confirmed positions %d..%d", batch.after + 1, last)
        if last < batch.positions[-1]:
            reason = batch.failure if batch.failure is not None else "not confirmed"
            confirmed = f"positions {last + 1}..{batch.positions[-1]} not delivered"
            raise DeliveryIncompleteError(f"{confirmed}: {config.broker_trouble(reason)}")

    def _produce_when_room(
        self, topic: str, key: str, value: bytes, headers: Headers, on_delivery: DeliveryReport
    ) -> None:
        while True:
            self.producer.poll(0.1)  # the local queue is full: let deliveries drain
            try:
                self.producer.produce(topic, value, key, on_delivery=on_delivery, headers=headers)
                return
            except BufferError:
                continue

    def run(self, stop: threading.Event) -> None:
        """Relay until `stop`: every touch of the database, the broker and the lease is retried here."""
        lease = Lease(f"consumer:{NAME}")
        backoff = Backoff(base=0.5, cap=5.0)
        failing_since: float | None = None
        failures = heartbeat.Failures(NAME)
        self.stop = stop
        log.info("relay started: %s -> %s", "eventlog_event", settings.KAFKA_BOOTSTRAP_SERVERS)
        try:
            while not stop.is_set():
                try:
                    sent = self._turn(lease, stop)
                    if sent is not None:  # None: standing by, which says nothing of the holder's batches
                        failures.worked()
                except Exception as error:
                    if is_fatal(error):
                        raise
                    failing_since = failing_since or time.monotonic()
                    self._recover(error, backoff.next(), stop, failures)
                    continue
                if failing_since is not None:
                    log.info("relay recovered after %.1fs of failures", time.monotonic() - failing_since)
                    failing_since = None
                backoff.reset()
                if sent == 0:
                    stop.wait(settings.CONSUMER_POLL_SECONDS)
        finally:
            lease.release()
            self.close()
            quietly(connection.close)  # this thread's session, as a consumer's worker closes its own
            log.info("relay stopped")

    def close(self) -> None:
        """Stop reading ahead (closing that thread's connection) and give the producer 5 s for what it
        holds. `run` ends with it; a relay driven batch by batch (`relay_batch`) is closed by its caller."""
        self.reader.close()
        self.producer.flush(5.0)

    def _turn(self, lease: Lease, stop: threading.Event) -> int | None:
        """The lease (taken or re-checked), a heartbeat, one batch; None while another relay holds the lease."""
        close_old_connections()
        if not lease.acquire():
            stop.wait(1.0)
            return None
        heartbeat.beat(NAME, "kafka")
        return self.relay_batch(guard=lease.verify)

    def _recover(self, error: Exception, pause: float, stop: threading.Event, failures: heartbeat.Failures) -> None:
        # librdkafka's words name neither the broker nor the setting
        line = config.broker_trouble(error) if isinstance(error, KafkaException) else heartbeat.first_line(error)
        said = f"{type(error).__name__}: {line}"
        if isinstance(error, KafkaException | DeliveryIncompleteError):
            log.warning("relay: broker trouble: %s; retrying in %.1fs", said, pause)
            self.topics_ready = False
            # After timed-out messages an idempotent producer's sequence numbers have
            # a gap it cannot repair: start a fresh producer (a new producer id).
            self.producer = Producer(config.producer())
        elif isinstance(error, LeaseLostError):
            log.warning("relay lost its lease; the unconfirmed batch is left to the holder; standing by")
        elif isinstance(error, DatabaseError | psycopg.Error | OSError):
            log.warning("relay: database trouble (%s: %s); retrying in %.1fs", type(error).__name__, error, pause)
        else:
            log.exception("relay: batch failed; retrying in %.1fs", pause)
        if not isinstance(error, LeaseLostError):  # standing by is not failing
            failures.failed(error, line)
        quietly(connection.close)  # a broken connection is replaced on the next turn
        stop.wait(pause)


def run_forever(stop: threading.Event) -> None:
    """Run the relay until `stop`; survive anything but a stop or a fatal error (logged, then retried)."""
    backoff = Backoff(base=1.0, cap=30.0)
    while not stop.is_set():
        try:
            Relay().run(stop)
        except Exception as error:
            if is_fatal(error):
                raise
            pause = backoff.next()
            log.exception("relay crashed; restarting in %.1fs", pause)
            stop.wait(pause)
