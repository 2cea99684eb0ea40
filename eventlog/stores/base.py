"""The storage seam: what every backend of the log offers, and nothing backend-specific.

Every backend keeps the same contract (tests/.../test_eventlog_store_contract.py):
appends check the expected version (invariant 2), positions grow, `read_all`
never skips an event that commits late (invariant 3), older schema versions
are upcast on read.
"""

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from ..alongside import Row
from ..records import NewEvent, RecordedEvent


class LogReader(Protocol):
    def read_all(
        self, after_position: int, limit: int = 1000, *, categories: Sequence[str] | None = None
    ) -> list[RecordedEvent]:
        """Up to `limit` events after `after_position`, in position order, gap-safe.

        An empty result means "nothing safe to read yet", not "the log ends here".
        """
        ...


class EventStore(LogReader, Protocol):
    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        alongside: Sequence[Row] = (),
        catch_up: int = 0,
    ) -> list[RecordedEvent]:
        """Append `events` as versions expected_version+1.. of `stream_id`, and write the rows
        `alongside` (eventlog.alongside), all or nothing: in the current transaction, or in
        one of their own outside one. WrongExpectedVersionError if the stream is not at
        `expected_version`; RowConflictError if a row's key is taken (nothing is written).

        With `catch_up` > 0 a WrongExpectedVersionError carries the events the append missed
        (its `missed`: the first `catch_up` after `expected_version`), so that a writer that
        decided on an old state can catch up without another read; on PostgreSQL the same
        statement returns them."""
        ...

    def read_stream(
        self, stream_id: str, up_to_version: int | None = None, *, after_version: int = 0
    ) -> list[RecordedEvent]:
        """One stream's events in version order: after `after_version` (a snapshot's, a page's start),
        optionally only up to a version (time travel). The cost is that of the events returned."""
        ...

    def head_position(self) -> int:
        """The highest position committed so far (0 for an empty log)."""
        ...

    def stream_version(self, stream_id: str) -> int: ...

    def lock_stream(self, stream_id: str) -> None:
        """Queue behind the other writers of `stream_id` that lock it, until this transaction ends.

        A remedy for retry storms, not a correctness device: appends stay checked
        against the expected version whether the writer locked or not.
        """
        ...

    def atomic(self) -> AbstractContextManager[None]:
        """One unit of work: the appends inside become visible together, or not at all."""
        ...

    def in_transaction(self) -> bool:
        """Whether a unit of work (`atomic()`, the caller's or one around it) is open."""
        ...

    def announce(self, categories: Sequence[str]) -> None:
        """Tell listeners, at this transaction's commit, that what the log of `categories` makes
        changed without an append (a rebuilt view put live): caches of those views drop it."""
        ...

    def hold_appends(self) -> AbstractContextManager[LogReader]:
        """Hold every append until the current transaction ends; the reader returns every
        committed event (none is in flight while appends are held). Must run inside
        `atomic()`: the hold lasts until that transaction ends, not only the `with`."""
        ...


def read_missed(store: EventStore, stream_id: str, expected_version: int, catch_up: int) -> list[RecordedEvent] | None:
    """What an append that found `stream_id` beyond `expected_version` missed, as `catch_up`
    asks for it: its first `catch_up` events after that version (None when not asked for).
    The stores that cannot return them from the failed append itself read them after it."""
    if not catch_up:
        return None
    return store.read_stream(stream_id, expected_version + catch_up, after_version=expected_version)


def iter_all(log: LogReader, after_position: int = 0, batch_size: int = 1000) -> Iterator[list[RecordedEvent]]:
    """Batches of everything after `after_position` that is safe to read now."""
    while batch := log.read_all(after_position, batch_size):
        yield batch
        after_position = batch[-1].position
