"""Where every consumer stands: position, lag and heartbeat, for operators.

Lag counts only the events of the categories a consumer reads, so a consumer
that has applied everything it reads shows no lag, whatever else the log holds.
"""

import operator
from collections.abc import Sequence
from functools import reduce
from typing import Any

from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from eventlog.models import Event

from . import checkpoints, heartbeat, registry


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
            "head": head, "lag_events": 0, "lag_seconds": 0.0, "running": True}  # fmt: skip


def _row(name: str, kind: str, categories: Sequence[str], consumer: object, head: int, default: str) -> dict[str, Any]:
    running, transport = heartbeat.running(name)
    transport = transport or default
    # The relay reads the table whatever the consumers' transport is.
    position = checkpoints.position_of(consumer, name, transport if consumer is not None else "table")
    lag_events, lag_seconds = lag(position, categories)
    return {"name": name, "kind": kind, "transport": transport, "checkpoint": position, "head": head,
            "lag_events": lag_events, "lag_seconds": lag_seconds, "running": running}  # fmt: skip


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
