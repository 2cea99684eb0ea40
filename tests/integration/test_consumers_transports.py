"""Async projections on both transports: redelivery changes nothing, and both give the same views."""

import pytest
from django.db import connection

from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.checkpoints import CheckpointMovedError
from consumers.models import Checkpoint, KafkaProgress
from consumers.transports import TableTransport
from eventlog import store
from projections import order_history, product_activity
from relay import config
from relay.kafka_transport import KafkaTransport
from tests.integration.test_kafka_relay import shop
from tests.kafka_broker import Broker
from tests.kafka_helpers import drain_until, read_topic, relay_everything
from tests.log_helpers import wait_until_readable

pytestmark = [pytest.mark.django_db(transaction=True)]
PROJECTIONS = [product_activity, order_history]


def rows(table: str) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} ORDER BY 1")
        return [tuple(str(v) for v in row) for row in cursor.fetchall()]


def fold_from_zero(projection, table: str) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    """The view as a fold of the whole log from position 0, into a scratch copy of the table."""
    scratch = f"scratch_{projection.NAME}"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
        cursor.execute(f"CREATE TABLE {scratch} AS SELECT * FROM {table} WHERE 1 = 0")
        if projection.KEY:
            cursor.execute(f"CREATE UNIQUE INDEX {scratch}_key ON {scratch} ({projection.KEY})")
    projection.apply(store.read_all(0, 1_000_000), scratch)
    return rows(scratch)


def reset(projection) -> None:  # type: ignore[no-untyped-def]
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {projection.TABLE}")
    Checkpoint.objects.filter(name=projection.NAME).delete()
    KafkaProgress.objects.filter(consumer=projection.NAME).delete()


@pytest.mark.parametrize("projection", PROJECTIONS, ids=lambda p: p.NAME)
def test_on_the_table_transport_a_batch_handed_out_twice_changes_nothing(catalog: None, projection) -> None:  # type: ignore[no-untyped-def]
    shop(4)
    wait_until_readable()
    consumer, transport = ProjectionConsumer(projection), TableTransport()
    batch = transport.fetch(consumer.name, consumer.categories, 1000)
    from django.db import transaction

    with transaction.atomic():
        consumer.handle(batch.events)
        batch.commit()
    after_once = rows(projection.TABLE)
    with pytest.raises(CheckpointMovedError), transaction.atomic():
        consumer.handle(batch.events)  # the same batch again, as after a lost acknowledgement
        batch.commit()
    assert rows(projection.TABLE) == after_once == fold_from_zero(projection, projection.TABLE)


@pytest.mark.kafka
@pytest.mark.postgres
@pytest.mark.slow
def test_both_transports_give_identical_projections_and_kafka_duplicates_change_nothing(
    catalog: None, kafka: Broker
) -> None:
    shop(6)
    relay_everything()
    # The relay sends everything again (as after a crash before its checkpoint moved): duplicates.
    Checkpoint.objects.filter(name="relay").update(position=0)
    relay_everything()
    head = store.head_position()
    for projection in PROJECTIONS:
        consumer = ProjectionConsumer(projection)
        wait_until_readable()
        runner.drain(consumer, TableTransport())
        on_table = rows(projection.TABLE)
        assert on_table == fold_from_zero(projection, projection.TABLE)
        reset(projection)
        transport = KafkaTransport()
        try:

            def caught_up(
                name: str = projection.NAME, table: str = projection.TABLE, size: int = len(on_table)
            ) -> bool:
                return KafkaProgress.objects.filter(consumer=name, position=head).exists() and len(rows(table)) == size

            drain_until(consumer, transport, caught_up)
            for _ in range(3):  # whatever is still queued is a repeat
                runner.process_batch(consumer, transport)
        finally:
            transport.close()
        assert rows(projection.TABLE) == on_table, f"{projection.NAME}: the transports disagree"


@pytest.mark.kafka
@pytest.mark.postgres
def test_the_compacted_cart_state_topic_holds_the_latest_state_of_each_cart(catalog: None, kafka: Broker) -> None:
    import json

    from api.cart_serializers import cart_body
    from carts.handler import load
    from relay.cart_state import CartStatePublisher
    from relay.topics import ensure_topics

    ensure_topics()
    shop(3)
    wait_until_readable()
    runner.drain(CartStatePublisher(), TableTransport())
    latest: dict[str, dict[str, object]] = {}
    for message in read_topic(config.topic(config.CART_STATE)):
        latest[message.key().decode()] = json.loads(message.value())
    expected = {cart_id: cart_body(load(cart_id)) for cart_id in latest}  # the API's document, amounts and all
    assert latest == expected
    assert len(latest) == 3 and all(state["status"] == "checked_out" for state in latest.values())
