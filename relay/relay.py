"""The relay loop: read committed events after the checkpoint, produce, confirm, advance.

The checkpoint moves only over the longest run of events whose delivery the
broker confirmed (acks=all), in the same order they were read. After a crash
or an outage, everything after the checkpoint is sent again: consumers see an
event at least once, never zero times, and drop repeats (relay/kafka_transport.py).
"""

import logging
import threading
from collections.abc import Sequence

from confluent_kafka import KafkaError, KafkaException, Message, Producer
from django.conf import settings
from django.db import close_old_connections, transaction

from consumers import checkpoints, heartbeat
from consumers.lease import Lease
from eventlog import store
from eventlog.records import RecordedEvent

from . import config
from .contract import to_message
from .topics import ensure_topics

log = logging.getLogger(__name__)
NAME = "relay"


class DeliveryIncompleteError(Exception):
    """Some events of a batch were not confirmed; the checkpoint stopped before them."""


class Relay:
    def __init__(self, batch_size: int | None = None) -> None:
        self.batch_size = batch_size or settings.CONSUMER_BATCH_SIZE
        self.producer = Producer(config.producer())
        self.topics_ready = False

    def relay_batch(self) -> int:
        """Send one batch; return how many events were confirmed (0: nothing to send)."""
        if not self.topics_ready:
            ensure_topics()
            self.topics_ready = True
        after = checkpoints.position(NAME)
        events = store.read_all(after, self.batch_size)
        if not events:
            return 0
        confirmed = self._send(events)
        last = _last_confirmed_in_order(events, confirmed, after)
        if last > after:
            with transaction.atomic():
                checkpoints.advance(NAME, after, last)
        if last < events[-1].position:
            raise DeliveryIncompleteError(f"confirmed up to position {last} of {events[-1].position}")
        return len(events)

    def _send(self, events: Sequence[RecordedEvent]) -> set[int]:
        confirmed: set[int] = set()

        def on_delivery(error: KafkaError | None, message: Message, position: int) -> None:
            if error is None:
                confirmed.add(position)
            else:
                log.warning("relay: delivery of position %d failed: %s", position, error)

        for event in events:
            key, value, headers = to_message(event)
            self._produce(config.topic(event.category), key, value, headers, event.position, on_delivery)
        # Wait until every message is confirmed or has failed (message.timeout.ms):
        # re-sending while some are still in flight would only multiply duplicates.
        while (left := self.producer.flush(1.0)) > 0:
            log.warning("relay: %d messages still waiting for the broker", left)
        return confirmed

    def _produce(self, topic, key, value, headers, position, on_delivery) -> None:  # type: ignore[no-untyped-def]
        def callback(error: KafkaError | None, message: Message) -> None:
            on_delivery(error, message, position)

        while True:
            try:
                self.producer.produce(topic, key=key, value=value, headers=headers, on_delivery=callback)
                self.producer.poll(0)
                return
            except BufferError:
                self.producer.poll(0.1)  # the local queue is full: let deliveries drain

    def run(self, stop: threading.Event) -> None:
        lease = Lease(f"consumer:{NAME}")
        backoff = 0.5
        log.info("relay started: %s -> %s", "eventlog_event", settings.KAFKA_BOOTSTRAP_SERVERS)
        try:
            while not stop.is_set():
                close_old_connections()
                if not lease.acquire():
                    stop.wait(1.0)
                    continue
                heartbeat.beat(NAME, "kafka")
                try:
                    sent = self.relay_batch()
                    backoff = 0.5
                except (KafkaException, DeliveryIncompleteError) as error:
                    log.warning("relay: broker trouble (%s); retrying in %.1fs", error, backoff)
                    self.topics_ready = False
                    # After timed-out messages an idempotent producer's sequence numbers have
                    # a gap it cannot repair: start a fresh producer (a new producer id).
                    self.producer = Producer(config.producer())
                    stop.wait(backoff)
                    backoff = min(backoff * 2, 10.0)
                    continue
                if sent == 0:
                    stop.wait(settings.CONSUMER_POLL_SECONDS)
        finally:
            lease.release()
            self.producer.flush(5.0)
            log.info("relay stopped")


def _last_confirmed_in_order(events: Sequence[RecordedEvent], confirmed: set[int], after: int) -> int:
    last = after
    for event in events:
        if event.position not in confirmed:
            break
        last = event.position
    return last


def run_forever(stop: threading.Event) -> None:
    """Run the relay until `stop`; survive anything but a stop (logged, then retried)."""
    while not stop.is_set():
        try:
            Relay().run(stop)
        except Exception:
            log.exception("relay crashed; restarting in 2s")
            stop.wait(2.0)
