"""What a swap writes into the consumer's records (rebuilds.live_position: record_everything_up_to).

The new table holds every event up to P, so every record says P: the checkpoint and, on Kafka,
each partition of the view's topics, made where missing. A record already past P stays: with the
table locked, only a batch that wrote no row can have moved it there, and lowering it would make
the consumer apply that batch a second time.
"""

import pytest
from django.test import override_settings

from consumers.models import Checkpoint, KafkaProgress
from projections import product_activity
from rebuilds.live_position import record_everything_up_to

pytestmark = pytest.mark.django_db

NAME = product_activity.NAME  # reads the cart category only: topic cartlog.cart, three partitions


def progress() -> dict[tuple[str, int], int]:
    found = KafkaProgress.objects.filter(consumer=NAME).values_list("topic", "partition", "position")
    return {(topic, partition): position for topic, partition, position in found}


def test_the_table_transport_checkpoint_is_made_at_the_new_tables_position() -> None:
    record_everything_up_to(product_activity, 40)

    assert Checkpoint.objects.get(name=NAME).position == 40
    assert progress() == {}  # never on Kafka: no per-partition records appear


def test_a_checkpoint_behind_is_raised_and_one_ahead_stays() -> None:
    Checkpoint.objects.create(name=NAME, position=25)
    record_everything_up_to(product_activity, 40)
    assert Checkpoint.objects.get(name=NAME).position == 40

    Checkpoint.objects.filter(name=NAME).update(position=52)
    record_everything_up_to(product_activity, 40)
    assert Checkpoint.objects.get(name=NAME).position == 52


@override_settings(KAFKA_BOOTSTRAP_SERVERS="127.0.0.1:9", KAFKA_TOPIC_PARTITIONS=3, KAFKA_TOPIC_PREFIX="cartlog")
def test_on_kafka_every_partition_says_the_new_position_and_one_ahead_stays() -> None:
    KafkaProgress.objects.create(consumer=NAME, topic="cartlog.cart", partition=0, position=31)
    KafkaProgress.objects.create(consumer=NAME, topic="cartlog.cart", partition=2, position=47)

    record_everything_up_to(product_activity, 40)

    assert progress() == {("cartlog.cart", 0): 40, ("cartlog.cart", 1): 40, ("cartlog.cart", 2): 47}
    assert Checkpoint.objects.get(name=NAME).position == 40
