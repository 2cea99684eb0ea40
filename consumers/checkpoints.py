"""Positions: how far each consumer has read the log, moved only together with its work.

The one owner of "where a reader stands". A consumer on the table transport
keeps a `Checkpoint` row; on Kafka it keeps a `KafkaProgress` row per
partition (everything up to the lowest is surely applied); a consumer that
keeps its position elsewhere (the archiver: beside its files) says so by
having a `position()` method (`KeepsOwnPosition`).
"""

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from django.db import connection
from django.utils import timezone

from .models import Checkpoint, KafkaProgress


class CheckpointMovedError(Exception):
    """Another runner advanced this checkpoint under us; our batch was rolled back."""


@runtime_checkable
class KeepsOwnPosition(Protocol):
    def position(self) -> int: ...


def position(name: str) -> int:
    checkpoint, _ = Checkpoint.objects.get_or_create(name=name)
    return checkpoint.position


def read_position(name: str) -> int:
    """Like `position`, without creating the row (for reports)."""
    found = Checkpoint.objects.filter(name=name).values_list("position", flat=True).first()
    return found or 0


def kafka_position(name: str) -> int:
    """The lowest of consumer `name`'s rows (`relay/kafka_transport.py: covered` knows its partitions)."""
    return lowest(kafka_progress(name), ())


def kafka_progress(name: str) -> dict[tuple[str, int], int]:
    """Position per (topic, partition) of consumer `name`'s `KafkaProgress` rows."""
    rows = KafkaProgress.objects.filter(consumer=name).values_list("topic", "partition", "position")
    return {(topic, partition): position for topic, partition, position in rows}


def lowest(progress: dict[tuple[str, int], int], partitions: Iterable[tuple[str, int]]) -> int:
    """The lowest progress over `partitions` and those `progress` has; a partition without a row has
    applied nothing yet: 0."""
    return min((progress.get(where, 0) for where in {*partitions, *progress}), default=0)


def position_of(consumer: object, name: str, transport: str) -> int:
    """Where `name` stands on `transport`, asking the consumer first if it keeps its own."""
    if isinstance(consumer, KeepsOwnPosition):
        return consumer.position()
    return kafka_position(name) if transport == "kafka" else read_position(name)


def advance(name: str, from_position: int, to_position: int) -> None:
    """Compare-and-set, inside the caller's transaction: refuse if someone else moved it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE projection_checkpoint SET position = %s, updated_at = %s WHERE name = %s AND position = %s",
            [to_position, timezone.now(), name, from_position],
        )
        if cursor.rowcount != 1:
            raise CheckpointMovedError(f"checkpoint {name!r} is no longer at {from_position}")
