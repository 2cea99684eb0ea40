"""Where every consumer stands: position, lag and heartbeat, for operators.

Lag counts only the events of the categories a consumer reads, from the position
it surely reaches on its transport (consumers/coverage.py), so a consumer that has
applied everything it reads shows no lag, whatever else the log holds. A consumer
that writes in batches (the archiver) says what its next write waits for instead.
"""

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import reduce
from typing import Any, Protocol, runtime_checkable

from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from eventlog.models import Event

from . import coverage, heartbeat, registry


@dataclass(frozen=True, kw_only=True)
class Waiting:
    """A batching consumer's next write: after `events` more events, or the first delivery after `after`."""

    events: int
    after: datetime

    def __str__(self) -> str:
        return f"waiting for {self.events} events or {self.after.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


@runtime_checkable
class Batches(Protocol):
    """A consumer whose own position trails what it was handed until its next write."""

    def waiting(self, delivered: int) -> Waiting | None: ...


def overview(inline_names: Sequence[str], async_names: Sequence[str]) -> list[dict[str, Any]]:
    """One row per inline projection (never behind), consumer and tracked process."""
    head = _head()
    rows = [_inline(name, head) for name in inline_names]
    default = registry.default_transport()
    for consumer in registry.all_consumers():
        kind = "async projection" if consumer.name in async_names else "consumer"
        rows.append(_row(consumer.name, kind, consumer.categories, consumer, head, default))
    if default == "kafka":
        rows += [_row(name, "consumer", (), None, head, default) for name in registry.processes()]
    return rows


def _inline(name: str, head: int) -> dict[str, Any]:
    # Written in the command's own transaction: never behind what is committed.
    return {"name": name, "kind": "inline projection", "transport": "inline", "checkpoint": head,
            "head": head, "lag_events": 0, "lag_seconds": 0.0, "running": True, "waiting": None,
            "failing": None}  # fmt: skip


def _row(name: str, kind: str, categories: Sequence[str], consumer: object, head: int, default: str) -> dict[str, Any]:
    running, transport = heartbeat.running(name)
    transport = transport or default
    # The relay reads the table whatever the consumers' transport is.
    position = coverage.position_on(consumer, name, transport if consumer is not None else "table")
    lag_from, waiting = position, None
    if isinstance(consumer, Batches):
        # Its lag is what it has not been handed yet; what it holds back for its next write is `waiting`.
        delivered = coverage.position_on(None, name, transport)
        lag_from, waiting = max(delivered, position), consumer.waiting(delivered)
    lag_events, lag_seconds = lag(lag_from, categories)
    failing = _failing(name)
    # While its writes fail it waits for nothing: 'waiting ... or <a time already past>' read as a stalled clock.
    said_waiting = None if waiting is None or failing else str(waiting)
    return {"name": name, "kind": kind, "transport": transport, "checkpoint": position, "head": head,
            "lag_events": lag_events, "lag_seconds": lag_seconds, "running": running,
            "waiting": said_waiting, "failing": failing}  # fmt: skip


def _failing(name: str) -> str | None:
    """'<error> (since <time> UTC)' while its batches fail (consumers.heartbeat.failing), else None."""
    found = heartbeat.failures([name]).get(name)
    if found is None:
        return None
    error, since = found
    return error if since is None else f"{error} (since {since.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC)"


def lag(position: int, categories: Sequence[str] = ()) -> tuple[int, float]:
    """Events of `categories` (all: ()) committed after `position`, and how long the oldest has waited."""
    events = Event.objects.filter(position__gt=position)
    if categories:
        events = events.filter(reduce(operator.or_, (Q(stream_id__startswith=f"{c}-") for c in categories)))
    found = events.aggregate(count=Count("position"), oldest=Min("recorded_at"))
    if not found["count"]:
        return 0, 0.0
    return int(found["count"]), round((timezone.now() - found["oldest"]).total_seconds(), 3)


def _head() -> int:
    return int(Event.objects.aggregate(head=Max("position"))["head"] or 0)
