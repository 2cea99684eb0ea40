"""Where a consumer's events come from, and how its progress is recorded.

A transport hands out a `Batch`: the events to handle, plus `commit()` that
records the progress *inside* the consumer's transaction (so view rows and
progress commit together) and `after_commit()` for anything outside the
database (e.g. a Kafka offset commit, which is only an optimisation then).

`TableTransport` reads the event table by position: the embedded default, no
Kafka needed. The Kafka transport lives in relay/kafka_transport.py.
"""

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from eventlog import store
from eventlog.records import RecordedEvent

from . import checkpoints
from .wakeup import Waiter


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Batch:
    events: list[RecordedEvent]
    commit: Callable[[], None] = _nothing
    after_commit: Callable[[], None] = _nothing


class Transport(Protocol):
    name: str

    def fetch(self, consumer: str, categories: Sequence[str], limit: int) -> Batch: ...

    def close(self) -> None: ...


@runtime_checkable
class Settling(Protocol):
    """A transport whose empty fetch may not yet mean "nothing now" (a Kafka group member that has not
    read its partitions to their ends since it joined). `drain` (run_consumers --once) fetches again
    until it is settled, for `settle_seconds` at most."""

    settle_seconds: float

    def settled(self) -> bool: ...


@runtime_checkable
class Wakeable(Protocol):
    """A transport that knows when to look again (the table transport); others are polled."""

    def idle(self, stop: threading.Event, poll_seconds: float) -> None: ...


@runtime_checkable
class Interruptible(Protocol):
    """A transport that waits for a broker inside fetch() (the Kafka transport joining it): the runner
    hands it its stop event, which ends such a wait, so that a SIGTERM is not held for its whole timeout."""

    def interrupt_on(self, stop: threading.Event) -> None: ...


class TableTransport:
    """Reads `eventlog_event` after the consumer's checkpoint, gap-safe (store.read_all).

    Between empty reads it waits for the log's notification (PostgreSQL), with the
    poll as a fallback (consumers/wakeup.py); on SQLite it polls.
    """

    name = "table"

    def __init__(self) -> None:
        self.waiter = Waiter()

    def fetch(self, consumer: str, categories: Sequence[str], limit: int) -> Batch:
        self.waiter.mark(categories)  # before the read: an append committed after this wakes the next idle()
        after = checkpoints.position(consumer)
        # Anything at or below the checkpoint is already in the view: never hand it out again.
        events = [e for e in store.read_all(after, limit, categories=categories or None) if e.position > after]
        if not events:
            return Batch(events=[])
        last = events[-1].position
        return Batch(events=events, commit=lambda: checkpoints.advance(consumer, after, last))

    def idle(self, stop: threading.Event, poll_seconds: float) -> None:
        """Wait after a read that found nothing: until an append is announced, or the poll elapses."""
        self.waiter.idle(stop, poll_seconds)

    def close(self) -> None:
        """Let go of the process's LISTEN session (closed when its last user leaves)."""
        self.waiter.close()
