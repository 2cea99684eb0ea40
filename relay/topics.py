"""Creating the relay's topics (partitions and configs from settings)."""

import logging

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic
from django.conf import settings

from . import config

log = logging.getLogger(__name__)


def ensure_topics(timeout: float = 15.0) -> None:
    admin = AdminClient(config.common())
    existing = set(admin.list_topics(timeout=timeout).topics)
    wanted = [_new(config.topic(category)) for category in config.categories()]
    wanted.append(_new(config.topic(config.CART_STATE), {"cleanup.policy": "compact"}))
    missing = [t for t in wanted if t.topic not in existing]
    if not missing:
        return
    for name, future in admin.create_topics(missing, operation_timeout=timeout).items():
        try:
            future.result(timeout)
            log.info("created topic %s", name)
        except KafkaException as error:
            if "already exists" not in str(error).lower() and "TOPIC_ALREADY_EXISTS" not in str(error):
                raise


def _new(name: str, topic_config: dict[str, str] | None = None) -> NewTopic:
    return NewTopic(
        name,
        num_partitions=settings.KAFKA_TOPIC_PARTITIONS,
        replication_factor=settings.KAFKA_REPLICATION_FACTOR,
        config=topic_config or {},
    )
