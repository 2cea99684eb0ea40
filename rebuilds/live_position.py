"""What an async view's live table holds, as its consumer records it, on either transport.

On the table transport the consumer keeps one position (`projection_checkpoint`);
on Kafka, one per topic partition (`consumer_kafka_progress`: the highest
position applied from that partition; partitions interleave, so the table can
hold an event of one partition and lack an earlier one of another). A rebuild
needs both directions:

* `--verify` asks which events the live table lacks, to compare both sides at
  one position without writing the live table (rebuilds.finish: compare);
* the swap (rebuilds.finish) puts in a table whose events its consumer's
  records must describe. On the table transport the new table holds every
  event up to P, recorded as the checkpoint: a batch the consumer fetched
  before fails its compare-and-set and is fetched again. On Kafka nothing
  refuses such a batch (its progress is saved without a compare-and-set), so
  the swap first lets a running consumer apply everything up to the shadow's
  position (`wait_for_kafka_consumer`), then fills the shadow, partition by
  partition, up to exactly what the consumer recorded, and leaves its records
  as they are: a batch in its hands holds only later events, which it applies
  to the new table once. A partition recorded below the new table's prefix
  (the consumer stopped, or slower than the wait) is raised to it.

Which record describes the live table is what the consumer's last heartbeat
says (`consumer_heartbeat.transport`); without one, the record that exists.
"""

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings

from consumers import heartbeat
from consumers.models import Checkpoint, Heartbeat, KafkaProgress
from eventlog.records import RecordedEvent
from projections.registry import Projection
from relay import config
from relay.kafka_transport import covered
from relay.topics import partition_for

log = logging.getLogger(__name__)

TABLE, KAFKA = "table", "kafka"
WAIT_SECONDS = 30.0  # a running consumer applies what the shadow holds well within this


def transport_of(heartbeat: str | None, checkpoint: bool, kafka_rows: bool, kafka_configured: bool) -> str | None:
    """Which record says what the live table holds (None: no consumer of that name has run)."""
    if heartbeat in (TABLE, KAFKA):
        return heartbeat
    if checkpoint and kafka_rows:  # both, no heartbeat: the transport run_consumers picks by default
        return KAFKA if kafka_configured else TABLE
    return KAFKA if kafka_rows else TABLE if checkpoint else None


@dataclass(frozen=True)
class LivePosition:
    transport: str | None
    checkpoint: int = 0
    partitions: dict[tuple[str, int], int] = field(default_factory=dict)  # (topic, partition): position

    def lowest(self) -> int | None:
        """Every event at or below this is in the live table (None: nothing is known); on Kafka
        `partitions` holds every partition of the view's topics, 0 for one nothing was applied from."""
        if self.transport == KAFKA:
            return min(self.partitions.values(), default=0)
        return self.checkpoint if self.transport == TABLE else None

    def holds(self, event: RecordedEvent) -> bool:
        """Whether the live table holds `event` (on Kafka: its partition's progress reached it)."""
        if self.transport == KAFKA:
            return event.position <= self.partitions.get(_partition_of(event.stream_id), 0)
        return self.transport == TABLE and event.position <= self.checkpoint

    def lacks(self, events: Sequence[RecordedEvent]) -> list[RecordedEvent]:
        """Those of `events` the live table does not hold yet."""
        if self.transport is None:
            return []
        return [event for event in events if not self.holds(event)]


def read(projection: Projection) -> LivePosition:
    """Only reads: the caller may still have to read the log gap-safe (no transaction id yet)."""
    name = projection.NAME
    checkpoint = Checkpoint.objects.filter(name=name).values_list("position", flat=True).first()
    rows = KafkaProgress.objects.filter(consumer=name).values_list("topic", "partition", "position")
    partitions = {(topic, partition): position for topic, partition, position in rows}
    heartbeat = Heartbeat.objects.filter(name=name).values_list("transport", flat=True).first()
    kafka = bool(settings.KAFKA_BOOTSTRAP_SERVERS)
    transport = transport_of(heartbeat, checkpoint is not None, bool(partitions), kafka)
    if transport == KAFKA:
        partitions = {where: 0 for where in _every_partition(projection)} | partitions
    return LivePosition(transport=transport, checkpoint=checkpoint or 0, partitions=partitions)


def record_everything_up_to(projection: Projection, position: int) -> None:
    """The live table now holds exactly the events up to `position`: say so in the consumer's records."""
    Checkpoint.objects.update_or_create(name=projection.NAME, defaults={"position": position})
    kept = set(KafkaProgress.objects.filter(consumer=projection.NAME).values_list("topic", "partition"))
    if not kept and not settings.KAFKA_BOOTSTRAP_SERVERS:
        return  # never on Kafka
    for topic, partition in sorted(kept | _every_partition(projection)):
        KafkaProgress.objects.update_or_create(
            consumer=projection.NAME, topic=topic, partition=partition, defaults={"position": position}
        )


def record_swapped(projection: Projection, live: LivePosition, prefix: int) -> None:
    """After the swap: the new table holds every event up to `prefix` and, on Kafka, each
    partition's events up to what `live` recorded for it (see the module doc)."""
    if live.transport != KAFKA:
        record_everything_up_to(projection, prefix)
        return
    Checkpoint.objects.update_or_create(name=projection.NAME, defaults={"position": prefix})
    for (topic, partition), applied in sorted(live.partitions.items()):
        if applied < prefix:
            KafkaProgress.objects.update_or_create(
                consumer=projection.NAME, topic=topic, partition=partition, defaults={"position": prefix}
            )


def wait_for_kafka_consumer(projection: Projection, position: int, timeout: float = WAIT_SECONDS) -> bool:
    """Until the view's Kafka consumer has applied every event up to `position`; False at once when it is
    not running (no fresh heartbeat), or after `timeout` seconds. Reads only, outside any transaction."""
    deadline = time.monotonic() + timeout
    while covered(projection.NAME) < position:
        if not heartbeat.running(projection.NAME)[0] or time.monotonic() > deadline:
            log.info(
                "%s: its Kafka consumer has not applied up to %d; its progress is raised there",
                projection.NAME,
                position,
            )
            return False
        time.sleep(0.1)
    return True


def _every_partition(projection: Projection) -> set[tuple[str, int]]:
    return {(config.topic(c), p) for c in projection.CATEGORIES for p in range(settings.KAFKA_TOPIC_PARTITIONS)}


def _partition_of(stream_id: str) -> tuple[str, int]:
    """Where the relay sent this stream's events (relay.topics.partition_for)."""
    return config.topic(stream_id.split("-", 1)[0]), partition_for(stream_id)
