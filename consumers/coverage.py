"""How far a consumer's view reaches in the log, and a bounded wait for it to reach a position.

Read-your-writes on a view a consumer updates after the command: the command
answers with the position of its last event, and a reader that must see that
write waits until the consumer's position is at or past it. The position is
the one `checkpoints.position_of` reports for the consumer on the transport it
runs on: the table's checkpoint; on Kafka, the end of the longest prefix of the
log whose every event is applied (`kafka_covered`), since partitions interleave.
"""

import time
import zlib
from collections.abc import Callable

from django.conf import settings

from eventlog.models import Event

from . import checkpoints, registry
from .models import KafkaProgress

POLL_SECONDS = 0.05


def reader(name: str) -> Callable[[], int]:
    """Reads the last log position consumer `name` has surely applied (found once, read on each call)."""
    consumer = next((c for c in registry.all_consumers() if c.name == name), None)
    on = registry.default_transport()  # the process's setting: a heartbeat may be left from another run
    if on == "kafka" and not isinstance(consumer, checkpoints.KeepsOwnPosition):
        return lambda: kafka_covered(name)
    return lambda: checkpoints.position_of(consumer, name, on)


def kafka_covered(name: str, scan: int = 10_000) -> int:
    """The last position P such that every event up to P that `name` reads is applied.

    The lowest per-partition progress alone would stall behind a quiet partition;
    so from it, walk the log and stop at the first event its partition has not
    applied. An event's partition is the producer's default (librdkafka's
    consistent partitioner: CRC-32 of the key, the stream id, modulo the count).
    """
    progress = {(topic.rsplit(".", 1)[-1], partition): position for topic, partition, position in
                KafkaProgress.objects.filter(consumer=name).values_list("topic", "partition", "position")}  # fmt: skip
    consumer = next((c for c in registry.all_consumers() if c.name == name), None)
    categories = tuple(consumer.categories) if consumer is not None else ()
    reached = checkpoints.kafka_position(name)
    later = Event.objects.filter(position__gt=reached).order_by("position").values_list("position", "stream_id")
    for position, stream_id in later[:scan]:
        category = stream_id.split("-", 1)[0]
        if categories and category not in categories:
            reached = position
            continue
        partition = zlib.crc32(stream_id.encode()) % settings.KAFKA_TOPIC_PARTITIONS
        if progress.get((category, partition), 0) < position:
            break
        reached = position
    return reached


def position(name: str) -> int:
    return reader(name)()


def wait_for(read: Callable[[], int], wanted: int, seconds: float) -> int:
    """Poll `read()` until it reaches `wanted` or `seconds` pass; the last position read."""
    deadline = time.monotonic() + seconds
    reached = read()
    while reached < wanted and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        reached = read()
    return reached
