"""Rebuilding an async view whose consumer reads Kafka (Tansu): the swap and --verify.

On Kafka the consumer records what its view holds per topic partition
(`consumer_kafka_progress`), not in `projection_checkpoint`. The swap moved
only the checkpoint row, so events the consumer had not applied yet when the
shadow took them were applied again after the swap (counted twice); --verify
"brought the live view to the shadow's position" from that stale row and
wrote those events into the live view twice, though it swaps nothing.

A batch the consumer fetched before the swap and writes after it (blocked on
the swap's lock meanwhile) must be applied once: the swap records the new
table's position for every partition, and the batch's compare-and-set of its
progress refuses it; fetched again, it drops what the new table holds.

The expected counts are the log's own, counted in SQL: ItemAdded events per
SKU, and units in CheckedOut lines per SKU.
"""

import os
import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from consumers.base import ProjectionConsumer
from consumers.checkpoints import CheckpointMovedError
from consumers.models import Checkpoint, Heartbeat, KafkaProgress
from eventlog import store
from projections import product_activity
from rebuilds import build, finish, runs, service
from rebuilds.progress import Silent
from relay.kafka_transport import KafkaTransport, covered
from tests.kafka_broker import Broker
from tests.kafka_helpers import drain_until, relay_everything

from .rebuild_support import rows, shop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

NAME = product_activity.NAME


def counted_from_the_log() -> dict[str, tuple[int, int]]:
    """{sku: (times added, units sold)}, straight from the events' JSON."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT data->>'sku', COUNT(*) FROM eventlog_event WHERE type = 'ItemAdded' GROUP BY 1")
        added = dict(cursor.fetchall())
        cursor.execute(
            "SELECT line->>'sku', SUM((line->>'quantity')::int) FROM eventlog_event,"
            " jsonb_array_elements(data->'lines') AS line WHERE type = 'CheckedOut' GROUP BY 1"
        )
        sold = dict(cursor.fetchall())
    return {sku: (int(added.get(sku, 0)), int(sold.get(sku, 0))) for sku in added.keys() | sold.keys()}


def in_the_view() -> dict[str, tuple[int, int]]:
    return {sku: (row["times_added"], row["units_sold"]) for sku, row in rows(product_activity.TABLE, "sku").items()}


def progress() -> dict[tuple[str, int], int]:
    found = KafkaProgress.objects.filter(consumer=NAME).values_list("topic", "partition", "position")
    return {(topic, partition): position for topic, partition, position in found}


def beating() -> None:
    """The consumer's heartbeat, as run_consumers writes it (not `heartbeat.beat`, which skips a beat
    written by this process a moment ago: an earlier test's)."""
    Heartbeat.objects.update_or_create(
        name=NAME, defaults={"transport": "kafka", "beat_at": timezone.now(), "pid": os.getpid()}
    )


def caught_up() -> bool:
    return covered(NAME) >= store.head_position()


def test_after_a_swap_the_kafka_consumer_continues_where_the_shadow_stopped(
    seeded_catalog: None, kafka: Broker
) -> None:
    consumer, transport = ProjectionConsumer(product_activity), KafkaTransport()
    try:
        shop(6, seed=1)
        relay_everything()
        drain_until(consumer, transport, caught_up)
        shop(5, seed=2)  # on Kafka, not applied yet: the shadow takes these events
        relay_everything()

        outcome = service.rebuild(NAME)

        assert outcome.status == "swapped"
        assert set(progress().values()) == {outcome.position}  # every partition of its topic, none left out
        assert len(progress()) == 3
        drain_until(consumer, transport, caught_up)
        assert in_the_view() == counted_from_the_log()
    finally:
        transport.close()


def test_verify_on_kafka_leaves_the_live_view_and_its_progress_as_the_consumer_left_them(
    seeded_catalog: None, kafka: Broker
) -> None:
    consumer, transport = ProjectionConsumer(product_activity), KafkaTransport()
    try:
        shop(6, seed=3)
        relay_everything()
        drain_until(consumer, transport, caught_up)
        beating()  # as run_consumers does: this consumer runs on Kafka
        # Left behind by a swap or a run on the table transport, then never moved again: Kafka does not use it.
        Checkpoint.objects.update_or_create(name=NAME, defaults={"position": 1})
        shop(5, seed=4)  # relayed, not applied yet
        relay_everything()
        live, recorded = rows(product_activity.TABLE, "sku"), progress()

        outcome = service.rebuild(NAME, verify=True)

        assert outcome.differences == []  # the same code on both sides, compared at one position
        assert rows(product_activity.TABLE, "sku") == live
        assert progress() == recorded
        drain_until(consumer, transport, caught_up)
        assert in_the_view() == counted_from_the_log()
    finally:
        transport.close()


def swap_lock_taken() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE relation = %s::regclass"
            " AND mode = 'AccessExclusiveLock' AND granted)",
            [product_activity.TABLE],
        )
        return bool(cursor.fetchone()[0])


def test_a_batch_the_kafka_consumer_holds_across_the_swap_is_applied_once(seeded_catalog: None, kafka: Broker) -> None:
    consumer, transport = ProjectionConsumer(product_activity), KafkaTransport()
    try:
        shop(6, seed=5)
        relay_everything()
        drain_until(consumer, transport, caught_up)
        beating()  # it runs
        run = runs.resume_or_start(product_activity)
        assert build.catch_up(run, product_activity, 1000, Silent())
        shop(4, seed=6)  # after the shadow's last batch
        relay_everything()
        deadline = time.monotonic() + 30
        while not (batch := transport.fetch(NAME, consumer.categories, 1000)).events:
            assert time.monotonic() < deadline, "the consumer fetched nothing"

        refused: list[bool] = []

        def write_the_batch_once_the_swap_holds_the_table() -> None:
            try:
                deadline = time.monotonic() + 30
                while not swap_lock_taken():
                    assert time.monotonic() < deadline, "the swap never locked the table"
                    time.sleep(0.01)
                with transaction.atomic():  # as runner.process_batch: it waits for the swap's commit here
                    consumer.handle(batch.events)
                    batch.commit()
            except CheckpointMovedError:
                refused.append(True)  # rolled back; process_batch fetches again, as drain_until does below
            finally:
                connection.close()

        writer = threading.Thread(target=write_the_batch_once_the_swap_holds_the_table)
        writer.start()
        finish.swap(run, product_activity)
        writer.join(timeout=60)

        assert not writer.is_alive()
        assert refused == [True]  # its partitions' progress moved under it: the swap recorded the new table's
        drain_until(consumer, transport, caught_up)
        assert in_the_view() == counted_from_the_log()
    finally:
        transport.close()
