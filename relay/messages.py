"""An event as a Kafka message, and back: the value is the whole event as JSON."""

import json
from typing import Any
from uuid import UUID

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.dateparse import parse_datetime

from eventlog.records import RecordedEvent


def to_message(event: RecordedEvent) -> tuple[str, bytes, list[tuple[str, bytes]]]:
    """(key, value, headers) of an event."""
    value = {
        "position": event.position,
        "event_id": str(event.event_id),
        "stream_id": event.stream_id,
        "version": event.version,
        "type": event.type,
        "schema_version": event.schema_version,
        "data": event.data,
        "metadata": event.metadata,
        "occurred_at": event.occurred_at.isoformat(),
        "recorded_at": event.recorded_at.isoformat(),
    }
    headers = [
        ("event_id", str(event.event_id).encode()),
        ("type", event.type.encode()),
        ("schema_version", str(event.schema_version).encode()),
    ]
    return event.stream_id, json.dumps(value, cls=DjangoJSONEncoder).encode(), headers


def from_message(value: bytes) -> RecordedEvent:
    doc: dict[str, Any] = json.loads(value)
    return RecordedEvent(
        position=int(doc["position"]),
        event_id=UUID(doc["event_id"]),
        stream_id=doc["stream_id"],
        version=int(doc["version"]),
        type=doc["type"],
        schema_version=int(doc["schema_version"]),
        data=doc["data"],
        metadata=doc["metadata"],
        occurred_at=_when(doc["occurred_at"]),
        recorded_at=_when(doc["recorded_at"]),
    )


def _when(text: str) -> Any:
    parsed = parse_datetime(text)
    if parsed is None:
        raise ValueError(f"not a timestamp: {text!r}")
    return parsed
