"""The archiver: the committed log, copied incrementally to Parquet for the Spark jobs.

It reads the log by position with the gap-safe `store.read_all`, writes each
batch's part files, then moves its own checkpoint (a file beside the archive,
since the archive may live on other storage than the database). A run that died
between the two left files past the checkpoint; the next run deletes them and
writes those events again, so the archive holds every event of the log up to
its checkpoint exactly once. One writer at a time: runs take a file lock.
"""

import fcntl
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from django.conf import settings

from consumers.fatal import OperatorError
from eventlog import store
from eventlog.records import RecordedEvent
from spark_jobs import archive_layout as layout

from . import archive_files as files

DEFAULT_BATCH_SIZE = 50_000
LOCK_FILE = ".lock"


@dataclass(frozen=True, kw_only=True)
class ArchiveResult:
    """What one run did: events read from the log and written, files written, position reached."""

    read: int = 0
    written: int = 0
    files: int = 0
    position: int = 0


Progress = Callable[[ArchiveResult], None]


def archive_root() -> Path:
    return Path(settings.EVENT_ARCHIVE_PATH)


def archive_position() -> int:
    """The last log position the archive holds (0: empty)."""
    return layout.read_checkpoint(archive_root()).position


def archive(
    batch_size: int = DEFAULT_BATCH_SIZE, progress: Progress | None = None, *, through: int | None = None
) -> ArchiveResult:
    """Bring the archive up to the log's safe head (or to `through`), batch by batch.

    `progress` hears the result so far after each batch but the last, whose result this returns: a caller that
    says the result says nothing twice (an archive of one batch printed a line for the batch, then the same
    figures again as the step's result)."""
    root = archive_root()
    with _storage_errors(root), _locked(root):
        checkpoint = _recover(root)
        result = ArchiveResult(position=checkpoint.position)
        batch = _next_batch(checkpoint.position, batch_size, through)
        while batch:
            checkpoint, written = _write_batch(root, checkpoint, batch)
            result = ArchiveResult(
                read=result.read + len(batch),
                written=result.written + len(batch),
                files=result.files + len(written),
                position=checkpoint.position,
            )
            batch = _next_batch(checkpoint.position, batch_size, through)
            if progress and batch:
                progress(result)
        return result


def archive_batch(events: Sequence[RecordedEvent]) -> None:
    """Write one batch and move the checkpoint past it (the unit a consumer wraps).

    `events` must be the log's next events after `archive_position()`, in
    position order, as `store.read_all` returns them; events the archive already
    holds are skipped, so a redelivered batch changes nothing.
    """
    root = archive_root()
    with _storage_errors(root), _locked(root):
        checkpoint = _recover(root)
        fresh = [event for event in events if event.position > checkpoint.position]
        if fresh:
            _write_batch(root, checkpoint, fresh)


def _next_batch(after: int, batch_size: int, through: int | None) -> list[RecordedEvent]:
    batch = store.read_all(after, batch_size)
    return batch if through is None else [event for event in batch if event.position <= through]


class ArchiveMismatchError(OperatorError):
    """The archive folder was written from another log (another database, or one reset since)."""


class ArchiveStorageError(OperatorError):
    """The archive folder cannot be made, locked or written: a read-only mount, no permission, a full disk."""


@contextmanager
def _storage_errors(root: Path) -> Iterator[None]:
    # An OSError deep in pyarrow or fcntl names a file, not the setting an operator changes. What a
    # failed write left is past the checkpoint, so the next run removes it and writes it again.
    try:
        yield
    except OSError as error:
        raise ArchiveStorageError(
            f"cannot write the event archive in {root} (EVENT_ARCHIVE_PATH): {error}; "
            "make the folder writable (or free space) and run again: it resumes from its checkpoint"
        ) from error


def _recover(root: Path) -> layout.ArchiveCheckpoint:
    checkpoint = layout.read_checkpoint(root)
    _check_same_log(root, checkpoint)
    files.remove_unacknowledged(root, checkpoint.position)
    return checkpoint


def _check_same_log(root: Path, checkpoint: layout.ArchiveCheckpoint) -> None:
    # Appending this log's events after another log's would silently skip or mix events.
    if checkpoint.position == 0 or checkpoint.last_event_id is None:
        return
    at_checkpoint = store.read_all(checkpoint.position - 1, 1)
    if not at_checkpoint or str(at_checkpoint[0].event_id) != checkpoint.last_event_id:
        raise ArchiveMismatchError(
            f"the archive in {root} holds up to position {checkpoint.position} of another log; "
            "delete it or set EVENT_ARCHIVE_PATH to another folder"
        )


def _write_batch(
    root: Path, checkpoint: layout.ArchiveCheckpoint, events: Sequence[RecordedEvent]
) -> tuple[layout.ArchiveCheckpoint, list[files.PartFile]]:
    written = files.write_parts(root, events)
    moved = replace(
        checkpoint,
        position=events[-1].position,
        events=checkpoint.events + len(events),
        updated_at=files.now_iso(),
        last_event_id=str(events[-1].event_id),
        # Every part file written from here on has the typed cart columns (archive_files.SCHEMA).
        typed_from=checkpoint.position + 1 if checkpoint.typed_from is None else checkpoint.typed_from,
    )
    files.write_checkpoint(root, moved)  # only now are the files above part of the archive
    return moved, written


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    """An exclusive lock on the archive folder: a second archiver waits for the first."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK_FILE, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
