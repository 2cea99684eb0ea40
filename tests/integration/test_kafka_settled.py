"""When a Kafka group member may say it has read its partitions to the end (relay/kafka_transport.py:
_at_end, behind `settled()` and so `run_consumers --once`).

Found by checking the broker's answers: Tansu answers a watermark query with the base offset of the
partition's last batch plus one. Here the partition holds 8 messages, sent as a batch of 3 (offsets
0-2) and a batch of 5 (3-7), and the query answers 4. A member whose group had committed offset 5
(inside the second batch) looked at the end with offsets 5, 6 and 7 unread.
"""

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from relay import config
from relay.kafka_transport import _at_end
from relay.topics import ensure_topics
from tests.kafka_broker import Broker

pytestmark = [pytest.mark.kafka]


def read(kafka: Consumer, count: int) -> list[int]:
    """The offsets of the next `count` messages."""
    offsets: list[int] = []
    for _ in range(50):
        offsets += [int(m.offset() or 0) for m in kafka.consume(count - len(offsets), timeout=0.2) if m.error() is None]
        if len(offsets) == count:
            return offsets
    raise AssertionError(f"read {offsets}, wanted {count} messages")


def test_a_member_whose_group_committed_inside_the_last_batch_is_not_at_the_end(kafka: Broker) -> None:
    ensure_topics()
    topic = config.topic("cart")
    producer = Producer(config.common())
    for batch in (3, 5):  # each flushed on its own: one batch each
        for _ in range(batch):
            producer.produce(topic, b"{}", partition=0)
        assert producer.flush(10) == 0
    first = Consumer(config.consumer("settled"))
    first.assign([TopicPartition(topic, 0, 0)])
    assert read(first, 5) == [0, 1, 2, 3, 4]
    first.commit(asynchronous=False)  # offset 5: inside the batch of 5
    first.close()

    second = Consumer(config.consumer("settled"))  # the same group
    second.assign([TopicPartition(topic, 0)])  # from the group's committed offset
    try:
        assert not _at_end(second)  # 5, 6 and 7 are unread; the old check said True
        assert read(second, 3) == [5, 6, 7]
        assert _at_end(second)
    finally:
        second.close()
