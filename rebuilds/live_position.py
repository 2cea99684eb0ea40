"""What an async view's live table holds, as its consumer records it, on either transport.

On the table transport the consumer keeps one position (`projection_checkpoint`);
on Kafka, one per topic partition (`consumer_kafka_progress`: the highest
position applied from that partition; partitions interleave, so the table can
hold an event of one partition and lack an earlier one of another). A rebuild
uses them both ways:

* `--verify` asks which events the live table lacks, to compare both sides at
  one position without writing the live table (rebuilds.finish: compare);
* the swap (rebuilds.finish) puts in a table that holds every event up to P,
  and records P for the consumer: the checkpoint, and on Kafka every partition
  of the view's topics. A batch the consumer fetched before fails its
  compare-and-set and is fetched again, and then drops what is at or below P,
  on either transport.

Which record describes the live table is what the consumer's last heartbeat
says (`consumer_heartbeat.transport`); without one, the record that exists.
The consumer is the one that keeps the table (`registry.keeper`): the claim
validator's records say what `claims` holds; that view has none of its own.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Model, Value
from django.db.models.functions import Greatest

from consumers.models import Checkpoint, Heartbeat, KafkaProgress
from eventlog.records import RecordedEvent
from projections import registry
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
    name = registry.keeper(projection)
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
    """The live table now holds every event up to `position`: say so in the consumer's records.

    Called with the live table locked. A record already past `position` stays where it is: only a
    batch that wrote no row could have moved it there meanwhile (one that writes waits for the
    lock), so the new table holds what that batch did as much as the old one did.

    A consumer's own state (`claims`) records nothing: its keeper folds again from where it
    stands (its fold changes nothing twice), and the requests after its position, pending in the
    new table too, are still its to decide; moving its position would leave them undecided.
    """
    if registry.keeper(projection) != projection.NAME:
        return
    _raise(Checkpoint, {"name": projection.NAME}, position)
    kept = set(KafkaProgress.objects.filter(consumer=projection.NAME).values_list("topic", "partition"))
    if not kept and not settings.KAFKA_BOOTSTRAP_SERVERS:
        return  # never on Kafka
    for topic, partition in sorted(kept | _every_partition(projection)):
        _raise(KafkaProgress, {"consumer": projection.NAME, "topic": topic, "partition": partition}, position)


def _raise(model: type[Model], key: dict[str, Any], position: int) -> None:
    """Raise the record `key` names to `position`, or make it there: an insert that loses to the
    consumer's own (its first batch) gives way to the update, in a savepoint."""
    if model._default_manager.filter(**key).update(position=Greatest("position", Value(position))):
        return
    try:
        with transaction.atomic():
            model._default_manager.create(**key, position=position)
    except IntegrityError:
        model._default_manager.filter(**key).update(position=Greatest("position", Value(position)))


def _every_partition(projection: Projection) -> set[tuple[str, int]]:
    return {(config.topic(c), p) for c in projection.CATEGORIES for p in range(settings.KAFKA_TOPIC_PARTITIONS)}


def _partition_of(stream_id: str) -> tuple[str, int]:
    """Where the relay sent this stream's events (relay.topics.partition_for)."""
    return config.topic(stream_id.split("-", 1)[0]), partition_for(stream_id)
