"""The Kafka transport's progress moves by compare-and-set: a batch whose partition was applied by
someone else after it was fetched is fetched again, not applied twice.

Two readers can hold the same messages: in a rebalance the member that lost a partition still
has a batch of it in hand while the member that got it fetches the same messages (from the
group's last committed offset), and a rebuild's swap records a new table's progress under a
running consumer. Here a second reader applies the same messages and records its progress in
its own transaction between the first reader's fetch and its commit (real PostgreSQL, Tansu).
The progress was saved with update_or_create, which nothing refused: each of those adds was
counted twice.

The expected counts are the log's own, counted in SQL: ItemAdded events per SKU.
"""

import threading

import pytest
from django.db import connection, transaction

from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.models import KafkaProgress
from consumers.transports import Batch
from eventlog import store
from projections import product_activity
from relay.kafka_transport import KafkaTransport, covered
from tests.kafka_broker import Broker
from tests.kafka_helpers import drain_until, relay_everything

from .rebuild_support import rows, shop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

NAME = product_activity.NAME


def adds_in_the_log() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT data->>'sku', COUNT(*) FROM eventlog_event WHERE type = 'ItemAdded' GROUP BY 1")
        return {sku: int(count) for sku, count in cursor.fetchall()}


def adds_in_the_view() -> dict[str, int]:
    return {sku: row["times_added"] for sku, row in rows(product_activity.TABLE, "sku").items() if row["times_added"]}


def caught_up() -> bool:
    return covered(NAME) >= store.head_position()


def apply_elsewhere(consumer: ProjectionConsumer, batch: Batch) -> None:
    """What the other reader does with the same messages, on its own connection: apply them and move
    the progress of their partitions to their last position, in one transaction."""

    def other_reader() -> None:
        try:
            with transaction.atomic():
                consumer.handle(batch.events)
                for event in batch.events:
                    KafkaProgress.objects.filter(consumer=NAME).filter(position__lt=event.position).update(
                        position=event.position
                    )
        finally:
            connection.close()

    thread = threading.Thread(target=other_reader)
    thread.start()
    thread.join()


class FetchedTwice:
    """The transport under test, with the other reader stepping in once, right after its first fetch."""

    name = "kafka"

    def __init__(self, consumer: ProjectionConsumer) -> None:
        self.inner, self.consumer, self.stepped_in = KafkaTransport(), consumer, False

    def fetch(self, consumer: str, categories: object, limit: int) -> Batch:
        batch = self.inner.fetch(consumer, categories, limit)  # type: ignore[arg-type]
        if batch.events and not self.stepped_in:
            self.stepped_in = True
            apply_elsewhere(self.consumer, batch)
        return batch

    def close(self) -> None:
        self.inner.close()


def test_a_batch_applied_by_another_reader_after_its_fetch_is_fetched_again_and_dropped(
    seeded_catalog: None, kafka: Broker, settings
) -> None:  # type: ignore[no-untyped-def]
    settings.KAFKA_TOPIC_PARTITIONS = 1  # the whole batch in one partition: one record to race on
    consumer = ProjectionConsumer(product_activity)
    warm_up = KafkaTransport()
    try:
        shop(3, seed=11)
        relay_everything()
        drain_until(consumer, warm_up, caught_up)  # the partition has a progress row to compare with
    finally:
        warm_up.close()
    shop(4, seed=12)  # relayed, not applied yet: the batch both readers will hold
    relay_everything()

    racing = FetchedTwice(consumer)
    try:
        while not caught_up():
            runner.process_batch(consumer, racing)
        assert racing.stepped_in
        assert adds_in_the_view() == adds_in_the_log()
    finally:
        racing.close()
