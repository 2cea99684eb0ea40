"""librdkafka settings in one place, and the topic of each stream category.

Every librdkafka option can be given through the environment as `KAFKA_` + the
option's name in capitals with dots as underscores, so TLS and SASL need no code:

    KAFKA_SECURITY_PROTOCOL=SASL_SSL      -> security.protocol=SASL_SSL
    KAFKA_SASL_MECHANISM=SCRAM-SHA-512    -> sasl.mechanism=SCRAM-SHA-512
    KAFKA_SSL_CA_LOCATION=/etc/ca.pem     -> ssl.ca.location=/etc/ca.pem

They go into the producer, consumer and admin configs alike and win over the
defaults below, except the few the guarantees rest on (the producer's
idempotence and acks, the consumer's group.id and manual commits). The names of
cartlog's own Kafka settings (cartlog/settings.py, OWN_SETTINGS) are not options.
"""

import logging
import os
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from django.conf import settings

PREFIX = "KAFKA_"
# cartlog's settings that share the prefix; KAFKA_BOOTSTRAP_SERVERS is read through settings (tests override it).
OWN_SETTINGS = frozenset(
    {
        "KAFKA_BOOTSTRAP_SERVERS", "KAFKA_TOPIC_PREFIX", "KAFKA_TOPIC_PARTITIONS", "KAFKA_REPLICATION_FACTOR",
        "KAFKA_TOPIC_RETENTION_MS", "KAFKA_MESSAGE_TIMEOUT_MS",
    }
)  # fmt: skip

CART_STATE = "cart-state"
PARTITIONER = "consistent_random"  # librdkafka's default: CRC-32 of the key


def topic(category: str) -> str:
    """`cart` -> `cartlog.cart`: one topic per stream category, keyed by stream id."""
    return f"{settings.KAFKA_TOPIC_PREFIX}.{category}"


def categories() -> list[str]:
    return ["cart", "claim", "product", "person", "stock"]


def broker_trouble(reason: KafkaException | KafkaError | str) -> str:
    """What to say when the broker did not answer or refused: where it was looked for, and what to check."""
    if isinstance(reason, KafkaException) and reason.args and isinstance(reason.args[0], KafkaError):
        reason = reason.args[0]
    said = reason.str() if isinstance(reason, KafkaError) else str(reason)  # its words, without its code
    return (
        f"Kafka at {settings.KAFKA_BOOTSTRAP_SERVERS} (KAFKA_BOOTSTRAP_SERVERS): {said}; check that the broker "
        "is up and that the setting names it: nothing is lost, it goes on from its checkpoint once it answers"
    )


def options_from_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """librdkafka options from `KAFKA_*` variables (KAFKA_SASL_USERNAME -> sasl.username)."""
    environ = os.environ if environ is None else environ
    return {
        name.removeprefix(PREFIX).lower().replace("_", "."): value
        for name, value in environ.items()
        if name.startswith(PREFIX) and name not in OWN_SETTINGS and value != ""
    }


# librdkafka's own lines ("Connect to ... failed", a broker's errors) go through Python's logging, under this
# name, so they carry the service's format (LOG_FORMAT=json included) and level, not raw "%3|...|FAIL|" on stderr.
# They reach it when the client is polled.
LIBRDKAFKA_LOG = logging.getLogger("librdkafka")


def common() -> dict[str, Any]:
    """What every client gets: the bootstrap servers, librdkafka's log, and the operator's options
    (admin clients use it as is)."""
    servers = settings.KAFKA_BOOTSTRAP_SERVERS
    return {"bootstrap.servers": servers, "logger": LIBRDKAFKA_LOG, **options_from_environment()}


def producer() -> dict[str, Any]:
    return _operators_win(
        {
            "linger.ms": 5,
            "compression.type": "lz4",
            # Give up on a message after this long; the relay then re-sends it from its checkpoint.
            "message.timeout.ms": settings.KAFKA_MESSAGE_TIMEOUT_MS,
        }
    ) | {
        # Fixed: the relay's guarantees rest on them. Idempotent producer: retries cannot
        # duplicate or reorder within a partition.
        "enable.idempotence": True,
        "acks": "all",
        # Where a key goes is computed again by readers (relay/topics.py: partition_for): not an option.
        "partitioner": PARTITIONER,
    }


def consumer(group: str) -> dict[str, Any]:
    return _operators_win(
        {
            "auto.offset.reset": "earliest",
            # librdkafka's default (45 s) makes a group join take ~20 s; 6 s is plenty on one host.
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 1000,
            "topic.metadata.refresh.interval.ms": 5000,
            "fetch.wait.max.ms": 100,  # a quiet log should not delay the next event by half a second
        }
    ) | {"group.id": group, "enable.auto.commit": False}  # fixed: offsets move with the consumer's checkpoint


def _operators_win(defaults: dict[str, Any]) -> dict[str, Any]:
    return {**defaults, **common()}
