"""librdkafka settings in one place, and the topic of each stream category."""

from typing import Any

from django.conf import settings

CART_STATE = "cart-state"


def topic(category: str) -> str:
    """`cart` -> `cartlog.cart`: one topic per stream category, keyed by stream id."""
    return f"{settings.KAFKA_TOPIC_PREFIX}.{category}"


def categories() -> list[str]:
    return ["cart", "claim"]


def common() -> dict[str, Any]:
    return {"bootstrap.servers": settings.KAFKA_BOOTSTRAP_SERVERS}


def producer() -> dict[str, Any]:
    return {
        **common(),
        # Idempotent producer: retries cannot duplicate or reorder within a partition.
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        "compression.type": "lz4",
        # Give up on a message after this long; the relay then re-sends it from its checkpoint.
        "message.timeout.ms": settings.KAFKA_MESSAGE_TIMEOUT_MS,
    }


def consumer(group: str) -> dict[str, Any]:
    return {
        **common(),
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        # librdkafka's default (45 s) makes a group join take ~20 s; 6 s is plenty on one host.
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1000,
        "topic.metadata.refresh.interval.ms": 5000,
        "fetch.wait.max.ms": 100,  # a quiet log should not delay the next event by half a second
    }
