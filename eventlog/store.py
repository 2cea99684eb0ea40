"""The log through a Django database alias, as module functions: the callers' short way in.

Each function hands over to the `EventStore` for that alias (`eventlog.stores`:
PostgreSQL or SQLite by the connection's vendor); code that should run on any
store, the in-memory one included, takes an `EventStore` instead (the cart
handler gets its own from `cartlog.bootstrap`).
"""

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager

from . import stores
from .records import NewEvent, RecordedEvent
from .stores import LogReader, for_connection
from .stores.sql import COLUMNS, parse_timestamp

__all__ = [
    "COLUMNS",
    "announce",
    "append",
    "head_position",
    "hold_appends",
    "iter_all",
    "lock_stream",
    "parse_timestamp",
    "read_all",
    "read_stream",
    "stream_version",
]


def append(
    stream_id: str, expected_version: int, events: Sequence[NewEvent], *, using: str = "default"
) -> list[RecordedEvent]:
    """Append `events` as versions expected_version+1.. of `stream_id`, in the caller's
    transaction: they become visible when it commits, with whatever else it wrote
    (invariant 4). WrongExpectedVersionError if the stream is not at `expected_version`."""
    return for_connection(using).append(stream_id, expected_version, events)


def read_stream(
    stream_id: str, up_to_version: int | None = None, *, after_version: int = 0, using: str = "default"
) -> list[RecordedEvent]:
    return for_connection(using).read_stream(stream_id, up_to_version, after_version=max(after_version, 0))


def read_all(
    after_position: int, limit: int = 1000, *, categories: Sequence[str] | None = None, using: str = "default"
) -> list[RecordedEvent]:
    """Up to `limit` events after `after_position`, in position order, gap-safe (invariant 3).

    An empty result means "nothing safe to read yet", not "the log ends here".
    On PostgreSQL a transaction that has already written does not see the events
    it appended until it commits: a test that appends and then consumes must
    commit in between (`@pytest.mark.django_db(transaction=True)`).
    """
    return for_connection(using).read_all(after_position, limit, categories=categories)


def iter_all(
    after_position: int = 0, batch_size: int = 1000, *, using: str = "default"
) -> Iterator[list[RecordedEvent]]:
    """Batches of everything after `after_position` that is safe to read now."""
    return stores.iter_all(for_connection(using), after_position, batch_size)


def head_position(*, using: str = "default") -> int:
    return for_connection(using).head_position()


def stream_version(stream_id: str, *, using: str = "default") -> int:
    return for_connection(using).stream_version(stream_id)


def announce(categories: Sequence[str], *, using: str = "default") -> None:
    """At this transaction's commit, tell listeners that views of `categories` changed (PostgreSQL)."""
    for_connection(using).announce(categories)


def lock_stream(stream_id: str, *, using: str = "default") -> None:
    for_connection(using).lock_stream(stream_id)


def hold_appends(*, using: str = "default") -> AbstractContextManager[LogReader]:
    """Hold every append until this transaction ends; read every committed event meanwhile."""
    return for_connection(using).hold_appends()
