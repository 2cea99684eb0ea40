"""What an async view's live table holds, as its consumer records it, on either transport.

On the table transport the consumer keeps one position (`projection_checkpoint`);
on Kafka, one per topic partition (`consumer_kafka_progress`: the highest
position applied from that partition; partitions interleave, so the table can
hold an event of one partition and lack an earlier one of another). A rebuild
needs both directions:

* `--verify` asks which events the live table lacks, to compare both sides at
  one position without writing the live table (rebuilds.finish: compare);
* the swap puts in a table that holds every event up to P and no other, so it
  records "everything up to P" in both: the consumer continues after P,
  whichever transport it runs on next. On Kafka every partition of the
  view's topics gets P, so messages at or below it are dropped as repeats.

Which record describes the live table is what the consumer's last heartbeat
says (`consumer_heartbeat.transport`); without one, the record that exists.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings

from consumers.models import Checkpoint, Heartbeat, KafkaProgress
from eventlog.records import RecordedEvent
from projections.registry import Projection
from relay import config
from relay.topics import partition_for

TABLE, KAFKA = "table", "kafka"


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

    def lacks(self, events: Sequence[RecordedEvent]) -> list[RecordedEvent]:
        """Those of `events` the live table does not hold yet."""
        if self.transport == KAFKA:
            return [e for e in events if e.position > self.partitions.get(_partition_of(e.stream_id), 0)]
        if self.transport == TABLE:
            return [e for e in events if e.position > self.checkpoint]
        return []


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


def _every_partition(projection: Projection) -> set[tuple[str, int]]:
    return {(config.topic(c), p) for c in projection.CATEGORIES for p in range(settings.KAFKA_TOPIC_PARTITIONS)}


def _partition_of(stream_id: str) -> tuple[str, int]:
    """Where the relay sent this stream's events (relay.topics.partition_for)."""
    return config.topic(stream_id.split("-", 1)[0]), partition_for(stream_id)
