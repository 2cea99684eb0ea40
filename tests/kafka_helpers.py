"""Reading topics back, and running consumers and the relay until they caught up."""

import time
from collections import defaultdict
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from consumers import runner
from consumers.base import Consumer as LogConsumer
from consumers.transports import Transport
from eventlog import store
from relay import config
from relay.relay import Relay


def relay_everything(timeout: float = 60) -> None:
    relay = Relay()
    deadline = time.monotonic() + timeout
    try:
        while relay.relay_batch() or relay_checkpoint() < store.head_position():
            assert time.monotonic() < deadline, "the relay did not catch up"
    finally:
        relay.close()  # its read-ahead thread's session would outlive the test (and its database)


def relay_checkpoint() -> int:
    from consumers import checkpoints

    return checkpoints.position("relay")


def read_topic(topic: str, timeout: float = 10) -> list[Any]:
    """Every message of a topic, partition by partition, from the beginning (no group).

    Each partition is read up to the high watermark of the reader's own fetch answers: Tansu
    answers a watermark query with the base offset of the last batch plus one, and reading that
    many messages left most of a last batch unread (relay/kafka_transport.py: _at_end)."""
    reader = Consumer({**config.common(), "group.id": "test-reader", "enable.auto.commit": False})
    metadata = reader.list_topics(topic, timeout=timeout).topics[topic]
    messages = []
    for partition in metadata.partitions:
        where = TopicPartition(topic, partition, OFFSET_BEGINNING)
        reader.assign([where])
        got: list[Any] = []
        deadline = time.monotonic() + timeout
        while True:
            assert time.monotonic() < deadline, f"{topic}[{partition}]: read {len(got)} messages, no end in sight"
            got += [m for m in reader.consume(500, 0.5) if m.error() is None]
            low, high = reader.get_watermark_offsets(where, cached=True)
            if high >= 0 and (got[-1].offset() + 1 if got else low) >= high:
                break
        messages += got
    reader.close()
    return messages


def events_by_key(topic: str) -> dict[str, list[int]]:
    from relay.contract import from_message

    versions: dict[str, list[int]] = defaultdict(list)
    for message in read_topic(topic):
        event = from_message(message.value())
        versions[event.stream_id].append(event.version)
    return dict(versions)


def drain_until(consumer: LogConsumer, transport: Transport, done: Any, timeout: float = 60) -> None:
    """Process batches until `done()` (a Kafka group needs a few seconds to join)."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"{consumer.name} did not catch up"
        if runner.process_batch(consumer, transport) == 0:
            time.sleep(0.05)
