"""What a Kafka-transport consumer covers (relay/kafka_transport.py: covered), and a broker back without its log.

Found by CI: `covered` started its walk from the lowest *existing* progress row. A partition the
consumer had not applied anything from yet has no row, so it was left out: with one order applied
from partition 2 (progress 12) and two orders of partition 0 still unread, `covered` said 12, and a
test read the view before those two orders were in it. Read-your-writes (`Cartlog-Position`) rests
on the same reading.

Stream ids are chosen by the partition the relay sends them to, CRC-32 of the id modulo three:
cart-a -> 1, cart-b -> 0, cart-d -> 2.
"""

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import pytest
from django.conf import settings as django_settings

from consumers import runner
from consumers.models import KafkaProgress
from eventlog import store
from eventlog.records import NewEvent, RecordedEvent
from projections import product_activity
from relay import config
from relay.kafka_transport import BrokerUnavailableError, KafkaTransport, covered
from tests.kafka_broker import Broker
from tests.kafka_helpers import relay_everything

NAME = product_activity.NAME  # reads the cart category only
AT = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def started(stream_id: str, version: int = 0) -> RecordedEvent:
    """One event appended to `stream_id` (a type product_activity passes over): its recorded form."""
    (recorded,) = store.append(stream_id, version, [NewEvent(type="CartStarted", data={"owner": "x"}, occurred_at=AT)])
    return recorded


def progress(rows: dict[int, int]) -> None:
    topic = config.topic("cart")
    for partition, position in rows.items():
        KafkaProgress.objects.create(consumer=NAME, topic=topic, partition=partition, position=position)


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_partition_without_a_record_has_applied_nothing() -> None:
    a = started("cart-a")  # partition 1: nothing applied from it yet, no row
    b = started("cart-b")  # partition 0
    d = started("cart-d")  # partition 2
    assert django_settings.KAFKA_TOPIC_PARTITIONS == 3
    progress({0: b.position, 2: d.position})
    # Short of cart-a: positions go on across tests (a flush empties the table, not its sequence), so
    # before it is 0 or a position no event holds. The old reading started from partition 0's record
    # and said d.position: cart-a in the view.
    assert covered(NAME) < a.position

    progress({1: a.position})
    assert covered(NAME) == d.position


class Seen:
    """A consumer that keeps the positions it is handed, on the product_activity records."""

    name, categories = NAME, ("cart",)

    def __init__(self) -> None:
        self.positions: list[int] = []

    def handle(self, events: Sequence[RecordedEvent]) -> None:
        self.positions += [event.position for event in events]


def fetch_until(transport: KafkaTransport, consumer: Seen, done: Callable[[], bool], timeout: float = 60) -> None:
    """Batches until `done()`, as the runner's loop fetches them: a fetch that finds no broker fails, and
    the next one tries again."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not reached in {timeout}s; handed {consumer.positions}"
        try:
            runner.process_batch(consumer, transport)  # type: ignore[arg-type]
        except BrokerUnavailableError:
            time.sleep(0.1)


@pytest.mark.django_db(transaction=True)
@pytest.mark.kafka
@pytest.mark.postgres
@pytest.mark.slow
def test_a_broker_back_without_its_log_is_read_from_its_first_message(own_broker: Broker, settings) -> None:  # type: ignore[no-untyped-def]
    """Tansu keeps its log in memory: killed and started again, its topics start at offset 0. The member's
    positions from before point past the first messages the relay then sends again; librdkafka's rejoin
    (the new broker does not know the member) resets them to the group's committed offsets, here none,
    so the new topic is read from offset 0 and nothing the relay sent again is skipped."""
    settings.KAFKA_TOPIC_PARTITIONS = 1  # one partition: every message at the next offset
    first = [started("cart-b"), started("cart-b", 1), started("cart-b", 2)]  # offsets 0..2
    relay_everything()
    consumer, transport = Seen(), KafkaTransport()
    try:
        fetch_until(transport, consumer, lambda: first[-1].position in consumer.positions)
        own_broker.stop()
        away = time.monotonic() + 3  # the member goes on fetching, as its runner would
        fetch_until(transport, consumer, lambda: time.monotonic() > away)
        own_broker.start()
        later = [started("cart-d"), started("cart-d", 1), started("cart-d", 2), started("cart-a")]
        relay_everything()  # offsets 0..3 of the new topic: the member stood at offset 3
        fetch_until(transport, consumer, lambda: later[-1].position in consumer.positions)
    finally:
        transport.close()
    assert consumer.positions == [e.position for e in first + later]
