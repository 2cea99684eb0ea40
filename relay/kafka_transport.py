"""The Kafka transport: a consumer group per consumer, repeats dropped by position.

Each consumer (`name`) joins the group `<prefix>-<name>` on the topics of its
stream categories. What it has applied is kept in the database, per partition,
in the same transaction as its view rows (`KafkaProgress`): the Kafka offset
commit after that is only an optimisation, so a crash anywhere re-delivers at
most, and the repeat is dropped here.

That record moves by compare-and-set, as the table transport's checkpoint does: a
batch whose partitions' progress moved after it was fetched (another member of the
group took the partition in a rebalance and applied the same messages, a rebuild's
swap recorded its new table) is rolled back and fetched again, and then drops what
was applied meanwhile, instead of applying it twice.

A broker that goes away leaves a member nothing to read, and no error reaches its
runner: librdkafka retries by itself. So what it says in the meantime is watched
(`_on_error`, `_on_lost`), and while it says the broker is not answering, each
fetch first asks for the broker's metadata and raises BrokerUnavailableError
while none comes: the runner's loop says `failing` (consumers/heartbeat.py:
Failures), as it does for any other batch that fails, until a fetch gets through.
"""

import logging
import threading
from collections.abc import Sequence

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition
from django.conf import settings
from django.db import IntegrityError, transaction

from consumers import checkpoints, registry
from consumers.checkpoints import CheckpointMovedError
from consumers.fatal import OperatorError
from consumers.models import KafkaProgress
from consumers.transports import Batch
from eventlog.models import Event
from eventlog.records import RecordedEvent

from . import config
from .contract import from_message
from .topics import ensure_topics, metadata, partition_for

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
# How long a fetch waits for the broker's metadata once librdkafka has said it does not answer: a broker
# that is up answers in milliseconds, and the runner asks again after its backoff.
PROBE_SECONDS = 2.0


class BrokerUnavailableError(OperatorError):
    """The broker did not answer (or refused), joining it or since: its message names the address and the setting."""


class KafkaTransport:
    name = "kafka"
    # How long `runner.drain` (run_consumers --once) doubts an empty fetch: a new member gets its
    # partitions only once the group has joined (seconds), and then its fetcher needs a moment.
    settle_seconds = 15.0

    def __init__(self) -> None:
        self.kafka: Consumer | None = None
        self.unconfirmed: dict[tuple[str, int], int] = {}  # first offset per partition of a batch in hand
        self.assigned = False  # the group has given this member its partitions (none is an answer too)
        self.read_to_end = False  # since then, it has read to the end of each of them once (settled())
        self.unanswered = False  # librdkafka said the broker does not answer, and no fetch has got through since
        self.stop: threading.Event | None = None  # the runner's (interrupt_on): it ends a wait for the broker

    def interrupt_on(self, stop: threading.Event) -> None:
        """Waits for the broker (its topics, its metadata) end when `stop` is set (consumers/transports.py)."""
        self.stop = stop

    def fetch(self, consumer: str, categories: Sequence[str], limit: int) -> Batch:
        """The next batch; BrokerUnavailableError when the broker does not answer (joining it, or a wait
        in the fetch: the group's committed offsets, the partitions' ends)."""
        try:
            return self._fetch(consumer, categories, limit)
        except KafkaException as error:  # librdkafka's words alone named neither the broker nor the setting
            raise BrokerUnavailableError(config.broker_trouble(error)) from error

    def _fetch(self, consumer: str, categories: Sequence[str], limit: int) -> Batch:
        kafka = self._connect(consumer, categories)
        if self.unanswered:  # only after librdkafka said so: a healthy fetch costs nothing more
            metadata(kafka, PROBE_SECONDS, self.stop)
            self.unanswered = False
        self._rewind_unconfirmed(kafka)
        # Wait for the first message only, then take what is already buffered: consume(n, timeout)
        # alone would sit out the whole timeout on a quiet log.
        first = kafka.poll(POLL_SECONDS)
        if first is None:
            if not self.read_to_end and self.assigned and _at_end(kafka):
                self.read_to_end = True
            return Batch(events=[])
        buffered = kafka.consume(num_messages=max(limit - 1, 1), timeout=0) if limit > 1 else []
        messages = [m for m in [first, *buffered] if m.error() is None]
        if not messages:
            return Batch(events=[])
        for message in messages:
            self.unconfirmed.setdefault(_where(message), int(message.offset() or 0))
        read = _progress(consumer)
        progress = dict(read)
        events: list[RecordedEvent] = []
        for message in messages:
            event = from_message(message.value() or b"{}")
            where = _where(message)
            if event.position <= progress.get(where, 0):
                continue  # a repeat: applied before
            progress[where] = event.position
            events.append(event)
        if repeats := len(messages) - len(events):
            log.info("%s: dropped %d repeated message(s), at or below what it applied", consumer, repeats)
        if not events:
            self._confirm(kafka)
            return Batch(events=[])
        return Batch(
            events=events, commit=lambda: _save(consumer, read, progress), after_commit=lambda: self._confirm(kafka)
        )

    def settled(self) -> bool:
        """Whether an empty fetch means "nothing now" (consumers/transports.py: Settling).

        An empty poll right after joining says nothing: the member may not have its partitions
        yet, or not have fetched from them (`run_consumers --once` read 0 events of a backlog and
        exited). Settled once this member has reached the end of every partition it was given,
        seen on an empty poll; a rebalance starts over. A fetch is one poll either way, so the
        runner's loop still reads the lab's switches and its stop between polls.
        """
        return self.read_to_end

    def _on_assign(self, kafka: Consumer, partitions: list[TopicPartition]) -> None:
        """A (re)balance: the new partitions' ends are not known to be reached yet."""
        self.assigned, self.read_to_end = True, False

    def _on_lost(self, kafka: Consumer, partitions: list[TopicPartition]) -> None:
        """Its partitions were taken from it without a rebalance: the group's coordinator did not answer
        within session.timeout.ms (a broker frozen, or cut off by the network), or it fenced this member."""
        log.info("%d partition(s) lost: the group's coordinator did not answer in time", len(partitions))
        self.assigned = self.read_to_end = False
        self.unanswered = True

    def _on_error(self, error: KafkaError) -> None:
        """librdkafka's errors (its own lines log them): none is raised, it retries by itself. Served by poll()."""
        if error.code() == KafkaError._ALL_BROKERS_DOWN:  # a broker stopped: its connections refused
            self.unanswered = True

    def _connect(self, consumer: str, categories: Sequence[str]) -> Consumer:
        if self.kafka is None:
            # Subscribing to a topic that does not exist yet would wait for a metadata refresh.
            ensure_topics(stop=self.stop)
            group = f"{settings.KAFKA_TOPIC_PREFIX}-{consumer}"
            self.kafka = Consumer({**config.consumer(group), "error_cb": self._on_error})
            self.assigned = self.read_to_end = self.unanswered = False
            self.kafka.subscribe(
                [config.topic(c) for c in (categories or config.categories())],
                on_assign=self._on_assign,
                on_lost=self._on_lost,
            )
        return self.kafka

    def _rewind_unconfirmed(self, kafka: Consumer) -> None:
        """A batch whose transaction failed is read again, not skipped."""
        for (topic, partition), offset in self.unconfirmed.items():
            try:
                kafka.seek(TopicPartition(topic, partition, offset))
            except Exception:  # the partition moved to another member: it will re-read it
                log.info("not rewinding %s[%d]: no longer assigned", topic, partition)
        self.unconfirmed.clear()

    def _confirm(self, kafka: Consumer) -> None:
        self.unconfirmed.clear()
        try:
            kafka.commit(asynchronous=True)
        except Exception as error:  # nothing to commit, or a rebalance: the database has the truth
            log.debug("offset commit skipped: %s", error)

    def close(self) -> None:
        if self.kafka is not None:
            self.kafka.close()
            self.kafka = None


def covered(name: str, scan: int = 10_000) -> int:
    """The last position P such that every event up to P that consumer `name` reads is applied.

    It starts from the lowest progress over every partition of the consumer's topics (one without a
    row has applied nothing yet: the lowest of the rows alone said a view covered events that a
    partition it had not read from yet still held). That alone would stall behind a quiet partition;
    so from it, walk the log and stop at the first event of a category `name` reads that its
    partition (`partition_for`, as the relay sent it) has not applied. The walk is bounded by
    `scan`: a partition whose record stays far behind the head (nothing sent to it for a long
    time) leaves the answer short of the truth, never past it.
    """
    consumer = registry.find(name)
    categories = tuple(consumer.categories) if consumer is not None else ()
    topics = [config.topic(c) for c in (categories or config.categories())]
    every = [(topic, p) for topic in topics for p in range(settings.KAFKA_TOPIC_PARTITIONS)]
    rows = checkpoints.kafka_progress(name)
    reached = checkpoints.lowest(rows, every)
    progress = {(topic.rsplit(".", 1)[-1], partition): position for (topic, partition), position in rows.items()}
    later = Event.objects.filter(position__gt=reached).order_by("position").values_list("position", "stream_id")
    for position, stream_id in later[:scan]:
        category = stream_id.split("-", 1)[0]
        if (not categories or category in categories) and progress.get(
            (category, partition_for(stream_id)), 0
        ) < position:
            break
        reached = position
    return reached


def applied_beyond(name: str, position: int, events: Sequence[RecordedEvent]) -> list[RecordedEvent]:
    """Of `events` (after `covered(name)`), those consumer `name` has applied all the same: partitions
    interleave, so a partition ahead of the covered prefix has applied its events past it."""
    progress = {(topic.rsplit(".", 1)[-1], partition): reached for topic, partition, reached in
                KafkaProgress.objects.filter(consumer=name).values_list("topic", "partition", "position")}  # fmt: skip
    return [
        event
        for event in events
        if event.position > position
        and progress.get((event.stream_id.split("-", 1)[0], partition_for(event.stream_id)), 0) >= event.position
    ]


def _at_end(kafka: Consumer) -> bool:
    """Has this member read every partition it holds to the end (the high watermark)?

    Where it reads from is its position once it fetched, else the group's committed offset,
    else the beginning (`auto.offset.reset=earliest`).

    The end is the high watermark of the member's own last fetch answer (`cached=True`: no
    request), and a partition it has had no fetch answer from yet is not known to be read. A
    separate watermark query is not the end on Tansu: it answers the base offset of the last
    batch plus one (4 for a partition holding 8 in batches of 3 and 5), so a member whose group
    had committed inside that batch looked at the end with 3 messages unread, and `run_consumers
    --once` would have stopped short. Its fetch answers say 8.
    """
    assignment = kafka.assignment()
    if not assignment:
        return True
    positions = {(tp.topic, tp.partition): tp.offset for tp in kafka.position(assignment)}
    committed = {(tp.topic, tp.partition): tp.offset for tp in kafka.committed(assignment, timeout=5.0)}
    for tp in assignment:
        low, high = kafka.get_watermark_offsets(tp, cached=True)
        if high < 0:  # no fetch answer from it yet
            return False
        where = (tp.topic, tp.partition)
        start = next((offset for offset in (positions.get(where, -1), committed.get(where, -1)) if offset >= 0), low)
        if start < high:
            return False
    return True


def _where(message: Message) -> tuple[str, int]:
    return str(message.topic()), int(message.partition() or 0)


def _progress(consumer: str) -> dict[tuple[str, int], int]:
    rows = KafkaProgress.objects.filter(consumer=consumer).values_list("topic", "partition", "position")
    return {(topic, partition): position for topic, partition, position in rows}


def _save(consumer: str, read: dict[tuple[str, int], int], progress: dict[tuple[str, int], int]) -> None:
    """Move each partition's record from what the fetch `read` to `progress`, inside the consumer's
    transaction; CheckpointMovedError (the batch rolls back) if one is no longer what was read."""
    for (topic, partition), position in progress.items():
        was = read.get((topic, partition))
        if position == was:
            continue
        if was is None:
            try:
                with transaction.atomic():  # a savepoint: a row made meanwhile fails this insert alone
                    KafkaProgress.objects.create(consumer=consumer, topic=topic, partition=partition, position=position)
                continue
            except IntegrityError:
                pass
        elif KafkaProgress.objects.filter(consumer=consumer, topic=topic, partition=partition, position=was).update(
            position=position
        ):
            continue
        raise CheckpointMovedError(f"progress of {consumer!r} on {topic}[{partition}] is no longer at {was or 0}")
