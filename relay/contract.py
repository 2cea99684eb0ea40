"""The Kafka message contract: what cartlog publishes, for services it does not know.

This is an integration schema, versioned on its own (`CONTRACT_VERSION`, sent
as a header): the relay, the Kafka transport of the consumers and the
compacted cart-state topic all build their messages here, and nowhere else.

- Topic `events`: one message per event, key = stream id, value = the event's
  envelope as JSON (position, ids, type, schema_version, data, metadata, times).
- Topic `cart-state`: key = cart id, value = the cart document (id, status,
  items with names and prices, subtotal, discount, total, coupon, order_id,
  version). Changing a field's meaning means a new CONTRACT_VERSION.
"""

import json
from collections.abc import Mapping
from typing import Any
from uuid import UUID

import orjson
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.dateparse import parse_datetime

from carts.decider import CartState
from eventlog.records import RecordedEvent

CONTRACT_VERSION = 1
_DJANGO_JSON = DjangoJSONEncoder()


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
        ("contract_version", str(CONTRACT_VERSION).encode()),
    ]
    # orjson: the same JSON document (compact, UTF-8) several times faster than json.dumps; the relay
    # spent a quarter of its time here (docs/benchmarks.md, relay). Django's encoder stays the fallback.
    return event.stream_id, orjson.dumps(value, default=_DJANGO_JSON.default), headers


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


def cart_state(state: CartState, names: Mapping[str, str]) -> bytes:
    """The `cart-state` value of a cart; `names` are the products' names by SKU."""
    items = [
        {
            "sku": line.sku,
            "name": names.get(line.sku, line.sku),
            "quantity": line.quantity,
            "unit_price": line.unit_price,
            "line_total": line.line_total,
        }
        for line in state.lines
    ]
    document = {
        "id": state.cart_id,
        "status": state.status,
        "items": items,
        "subtotal": state.subtotal,
        "discount": state.discount,
        "total": state.total,
        "coupon": state.coupon,
        "order_id": state.order_id,
        "version": state.version,
    }
    return json.dumps(document, cls=DjangoJSONEncoder).encode()
