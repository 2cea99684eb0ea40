"""The relay's topics are made as settings say, and a topic that differs is reported, not ignored."""

import logging

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from relay import config
from relay.topics import ensure_topics

pytestmark = [pytest.mark.kafka]


def partitions(topic: str) -> int:
    return len(AdminClient(config.common()).list_topics(topic, timeout=10).topics[topic].partitions)


def test_topics_are_created_with_the_partitions_of_settings(kafka, settings) -> None:  # type: ignore[no-untyped-def]
    settings.KAFKA_TOPIC_PARTITIONS = 5
    assert [str(m) for m in ensure_topics() if m.setting == "partitions"] == []
    for category in config.categories():
        assert partitions(config.topic(category)) == 5
    assert partitions(config.topic(config.CART_STATE)) == 5


def test_a_topic_with_other_partitions_is_reported_naming_it_and_both_counts(kafka, settings, caplog) -> None:  # type: ignore[no-untyped-def]
    cart = config.topic("cart")
    admin = AdminClient(config.common())
    admin.create_topics([NewTopic(cart, num_partitions=2, replication_factor=1)])[cart].result(10)
    settings.KAFKA_TOPIC_PARTITIONS = 4
    with caplog.at_level(logging.ERROR, logger="relay.topics"):
        mismatches = ensure_topics()
    (found,) = [m for m in mismatches if m.setting == "partitions"]
    assert (found.topic, found.wanted, found.actual) == (cart, "4", "2")
    assert f"topic {cart}: partitions is 2, settings want 4" in caplog.text
    assert partitions(cart) == 2  # reported, never changed behind the operator's back
