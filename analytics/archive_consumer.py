"""The archiver as a consumer of `run_consumers` (installed by cartlog/bootstrap.py).

A delivered batch is only a signal of how far the log has grown: the archive
is a prefix of the log *by position*, which Kafka's per-key order cannot give,
so the consumer reads the log itself from the archive's own checkpoint, up to
the batch's highest position. That also makes it self-healing: a batch it
skipped, or an archive folder deleted and started afresh, is caught up from the
log on the next delivery. It writes only once enough events are pending or the
last write is old enough, so a quiet shop does not fill the archive with tiny
files; `archive_events` and `run_spark_jobs` always bring it fully up to date.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings

from consumers.status import Waiting
from eventlog.records import RecordedEvent
from spark_jobs import archive_layout as layout

from .archive import archive, archive_position, archive_root


@dataclass(frozen=True)
class ArchiveConsumer:
    name: str = "archiver"
    categories: tuple[str, ...] = ()  # every category: the archive is the whole log

    def handle(self, events: Sequence[RecordedEvent]) -> None:
        if not events:
            return
        through = max(event.position for event in events)
        if _due(layout.read_checkpoint(archive_root()), through):
            archive(through=through)

    def position(self) -> int:
        """The archive keeps its own checkpoint beside its files (not a Checkpoint row)."""
        return archive_position()

    def waiting(self, delivered: int) -> Waiting | None:
        """What the next write waits for, with events up to `delivered` handed in (None: nothing pending)."""
        checkpoint = layout.read_checkpoint(archive_root())
        if delivered <= checkpoint.position or checkpoint.updated_at is None:
            return None
        more = max(settings.ARCHIVE_CONSUMER_MIN_EVENTS - (delivered - checkpoint.position), 0)
        after = datetime.fromisoformat(checkpoint.updated_at) + _max_delay()
        return Waiting(events=more, after=after)


def _due(checkpoint: layout.ArchiveCheckpoint, through: int) -> bool:
    if through - checkpoint.position >= settings.ARCHIVE_CONSUMER_MIN_EVENTS or checkpoint.updated_at is None:
        return True
    return datetime.now(UTC) - datetime.fromisoformat(checkpoint.updated_at) >= _max_delay()


def _max_delay() -> timedelta:
    return timedelta(seconds=settings.ARCHIVE_CONSUMER_MAX_DELAY_SECONDS)


def consumers() -> list[ArchiveConsumer]:
    return [ArchiveConsumer()]
