"""Where every projection and consumer stands: what `GET /api/projections` shows operators."""

from typing import Any

from django.db import connection
from django.utils import timezone

from consumers import heartbeat
from consumers import registry as consumer_registry
from consumers.models import KafkaProgress
from eventlog import store

from . import registry
from .models import Checkpoint


def overview() -> list[dict[str, Any]]:
    head = store.head_position()
    rows = [_inline(p.NAME, head) for p in registry.inline()]
    names = [c.name for c in consumer_registry.all_consumers()]
    if consumer_registry.default_transport() == "kafka":
        names.append("relay")
    rows += [_consumer(name, head) for name in names]
    rebuilds = _rebuilds()
    for row in rows:
        row["rebuild"] = rebuilds.get(row["name"])
    return rows


def _inline(name: str, head: int) -> dict[str, Any]:
    # Written in the command's own transaction: never behind what is committed.
    return {"name": name, "kind": "inline projection", "transport": "inline", "checkpoint": head,
            "head": head, "lag_events": 0, "lag_seconds": 0.0, "running": True}  # fmt: skip


def _consumer(name: str, head: int) -> dict[str, Any]:
    running, transport = heartbeat.running(name)
    transport = transport or consumer_registry.default_transport()
    checkpoint = _checkpoint(name, transport)
    lag_events, lag_seconds = _lag(checkpoint)
    kind = "async projection" if name in {p.NAME for p in registry.asynchronous()} else "consumer"
    return {"name": name, "kind": kind, "transport": transport, "checkpoint": checkpoint, "head": head,
            "lag_events": lag_events, "lag_seconds": lag_seconds, "running": running}  # fmt: skip


def _checkpoint(name: str, transport: str) -> int:
    if name == "archiver":
        from analytics.archive import archive_position

        return archive_position()
    if transport == "kafka" and name != "relay":
        # Per partition; everything up to the lowest partition's position is surely applied.
        positions = list(KafkaProgress.objects.filter(consumer=name).values_list("position", flat=True))
        return min(positions) if positions else 0
    row = Checkpoint.objects.filter(name=name).first()
    return row.position if row else 0


def _lag(checkpoint: int) -> tuple[int, float]:
    """Events committed after the checkpoint, and how long the oldest of them has waited."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), MIN(recorded_at) FROM eventlog_event WHERE position > %s", [checkpoint])
        count, oldest = cursor.fetchone()
    if not count:
        return 0, 0.0
    oldest_at = store._datetime(oldest)
    return int(count), round((timezone.now() - oldest_at).total_seconds(), 3)


def _rebuilds() -> dict[str, Any]:
    try:
        from rebuilds.status import summary
    except ImportError:  # the rebuild module is optional to this overview
        return {}
    return summary()
