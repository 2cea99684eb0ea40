"""The relay's topics: created with the partitions, replication and retention of settings, and checked.

Kafka never changes a topic to match a client: a topic made earlier keeps its
partition count, replication and configs. A difference from settings is
reported at start as an error naming the topic, the setting and both values,
and left as it is: adding partitions moves keys to other partitions (a cart's
events would no longer be read in order across the change), so it is an
operator's decision (docs/scaling.md).
"""

import logging
import threading
import time
import zlib
from dataclasses import dataclass

from confluent_kafka import Consumer, KafkaException
from confluent_kafka.admin import AdminClient, ClusterMetadata, ConfigResource, NewTopic
from django.conf import settings

from . import config

log = logging.getLogger(__name__)
# A wait for the broker's metadata is asked in slices this long, so that the process's stop ends it
# (a broker that is not there would otherwise hold a SIGTERM for the whole timeout).
SLICE_SECONDS = 0.5


@dataclass(frozen=True)
class Mismatch:
    topic: str
    setting: str
    wanted: str
    actual: str

    def __str__(self) -> str:
        return f"topic {self.topic}: {self.setting} is {self.actual}, settings want {self.wanted}"


def partition_for(key: str) -> int:
    """The partition the relay's producer sends `key` (a stream id) to: librdkafka's `consistent_random`
    partitioner (CRC-32 of the key modulo the partition count), which relay/config.py fixes for the producer."""
    return zlib.crc32(key.encode()) % settings.KAFKA_TOPIC_PARTITIONS


def metadata(client: AdminClient | Consumer, timeout: float, stop: threading.Event | None = None) -> ClusterMetadata:
    """The cluster's metadata, waited for `timeout` at most, or until `stop` is set.

    librdkafka's wait cannot be interrupted, so it is asked again every SLICE_SECONDS while the broker
    does not answer; the connection is made in the background meanwhile. Raises the last KafkaException
    (its words: what librdkafka last said) once the time is up or `stop` is set.
    """
    stop = stop or threading.Event()
    deadline = time.monotonic() + timeout
    while True:
        started = time.monotonic()
        left = deadline - started
        try:
            return client.list_topics(timeout=max(min(SLICE_SECONDS, left), 0.01))
        except KafkaException:
            if left <= SLICE_SECONDS or stop.is_set():
                raise
        stop.wait(SLICE_SECONDS - (time.monotonic() - started))  # an answer that came at once: no busy loop


def ensure_topics(timeout: float = 15.0, stop: threading.Event | None = None) -> list[Mismatch]:
    """Create the missing topics; report (log an error for, and return) every difference from settings.

    `stop` (the process's) ends the wait for a broker that does not answer, with its KafkaException."""
    admin = AdminClient(config.common())
    wanted = wanted_topics()
    existing = set(metadata(admin, timeout, stop).topics)
    missing = [t for t in wanted if t.topic not in existing]
    if missing:
        _create(admin, missing, timeout)
    mismatches = check_topics(admin, [t for t in wanted if t.topic in existing], timeout)
    for mismatch in mismatches:
        log.error("%s (not changed: see docs/scaling.md)", mismatch)
    return mismatches


def wanted_topics() -> list[NewTopic]:
    """One topic per stream category (retention from settings) and the compacted cart-state topic."""
    retention = {"retention.ms": str(settings.KAFKA_TOPIC_RETENTION_MS)}
    topics = [_new(config.topic(category), retention) for category in config.categories()]
    topics.append(_new(config.topic(config.CART_STATE), {"cleanup.policy": "compact"}))
    return topics


def check_topics(admin: AdminClient, topics: list[NewTopic], timeout: float = 15.0) -> list[Mismatch]:
    found: list[Mismatch] = []
    metadata = admin.list_topics(timeout=timeout).topics
    for topic in topics:
        partitions = metadata[topic.topic].partitions
        found += _differs(topic.topic, "partitions", topic.num_partitions, len(partitions))
        replicas = min((len(p.replicas) for p in partitions.values()), default=0)
        found += _differs(topic.topic, "replication factor", topic.replication_factor, replicas)
    found += _config_mismatches(admin, topics, timeout)
    return found


def _config_mismatches(admin: AdminClient, topics: list[NewTopic], timeout: float) -> list[Mismatch]:
    resources = [ConfigResource(ConfigResource.Type.TOPIC, t.topic) for t in topics]
    if not resources:
        return []
    found: list[Mismatch] = []
    for (resource, future), topic in zip(admin.describe_configs(resources).items(), topics, strict=True):
        try:
            entries = future.result(timeout)
        except KafkaException as error:
            log.warning("topic %s: cannot read its configs to check them: %s", resource.name, error)
            continue
        for key, value in (topic.config or {}).items():
            actual = entries[key].value if key in entries else "(unset)"
            found += _differs(topic.topic, key, value, actual)
    return found


def _differs(topic: str, setting: str, wanted: object, actual: object) -> list[Mismatch]:
    return [] if str(wanted) == str(actual) else [Mismatch(topic, setting, str(wanted), str(actual))]


def _create(admin: AdminClient, topics: list[NewTopic], timeout: float) -> None:
    for name, future in admin.create_topics(topics, operation_timeout=timeout).items():
        try:
            future.result(timeout)
            log.info("created topic %s", name)
        except KafkaException as error:
            if "already exists" not in str(error).lower() and "TOPIC_ALREADY_EXISTS" not in str(error):
                raise


def _new(name: str, topic_config: dict[str, str]) -> NewTopic:
    return NewTopic(
        name,
        num_partitions=settings.KAFKA_TOPIC_PARTITIONS,
        replication_factor=settings.KAFKA_REPLICATION_FACTOR,
        config=topic_config,
    )
