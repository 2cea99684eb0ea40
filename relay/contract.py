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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any
from uuid import UUID

import orjson
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.dateparse import parse_datetime
from orjson import Fragment

from carts.decider import CartState
from carts.document import cart_document
from eventlog.records import RecordedEvent
from eventlog.registry import find, upcast
from eventlog.stores.sql import parse_timestamp

CONTRACT_VERSION = 1
_DJANGO_JSON = DjangoJSONEncoder()
Headers = list[tuple[str, str | bytes | None]]  # as confluent-kafka takes them
Message = tuple[str, bytes, Headers]  # key, value, headers
# The event table's columns a message is made of, in the order `messages` takes them (the relay
# reads only these). PostgreSQL returns them as `messages` wants them; SQLite rows go through `canonical`.
MESSAGE_COLUMNS = (
    "position, CAST(event_id AS TEXT), stream_id, version, type, schema_version, data, metadata,"
    " occurred_at, recorded_at"
)


def to_message(event: RecordedEvent) -> Message:
    """(key, value, headers) of an event (its data is current already: upcasting again changes nothing)."""
    [message] = messages(
        [
            (
                event.position, str(event.event_id), event.stream_id, event.version, event.type,
                event.schema_version, stored_text(event.data), stored_text(event.metadata), event.occurred_at,
                event.recorded_at,
            )
        ]
    )  # fmt: skip
    return message


def messages(rows: Iterable[Sequence[Any]]) -> Iterator[Message]:
    """(key, value, headers) of the event in each row of MESSAGE_COLUMNS as PostgreSQL returns
    them (the event id as canonical text, the documents as jsonb's JSON text, aware datetimes),
    without making the event.

    The value is the event's envelope as UTF-8 JSON, keys in this order, no spaces; its
    `data` and `metadata` are the stored documents as PostgreSQL writes jsonb (`stored_text`:
    ", " and ": " between items, keys in jsonb's order), the timestamps as `isoformat()`
    writes them (orjson writes an aware datetime the same way). The relay builds every
    message here from rows as read (relay/relay.py): a stored document goes into the value
    as it came (decoding both documents and encoding them again took 2.1 µs of CPU per
    message, splicing them 1.3 µs); only one that is upcast is decoded, lifted, and written as
    `stored_text` writes it. What depends on the type alone (headers, whether to upcast) is
    worked out once per call. One at a time: a message is produced and dropped before the
    next is made (a list of them kept the garbage collector busy).
    """
    kinds: dict[tuple[str, int], tuple[bool, Headers]] = {}
    for position, event_id, stream_id, version, type_, schema_version, data, metadata, occurred, recorded in rows:
        kind = kinds.get((type_, schema_version)) or kinds.setdefault(
            (type_, schema_version), _kind(type_, schema_version)
        )
        if kind[0]:
            schema_version, lifted = upcast(type_, schema_version, orjson.loads(data))
            data = stored_text(lifted)
        value = {
            "position": position,
            "event_id": event_id,
            "stream_id": stream_id,
            "version": version,
            "type": type_,
            "schema_version": schema_version,
            "data": Fragment(data),
            "metadata": Fragment(metadata),
            "occurred_at": occurred,
            "recorded_at": recorded,
        }
        yield stream_id, orjson.dumps(value), [("event_id", event_id.encode()), *kind[1]]


def stored_text(document: Any) -> str:
    """A document (JSON values, as `read_all` decodes them) as PostgreSQL writes it from jsonb:
    keys shorter first, then by their bytes; ", " and ": "; strings escaped as json.dumps does
    with ensure_ascii=False; a number as numeric writes it (no exponent). A value JSON has no
    type for (an upcaster's Decimal, say) is written as Django's encoder writes it.

    For the text PostgreSQL returned, `stored_text(orjson.loads(text)) == text` as long as
    orjson decodes every number of it exactly (integers within 64 bits, and any float
    Python wrote), so `to_message` of an event `read_all` returned and `messages` of its
    row give the same bytes (tests/integration/test_relay_contract.py).
    """
    if isinstance(document, str):
        return json.dumps(document, ensure_ascii=False)
    if isinstance(document, dict):
        items = sorted(document.items(), key=lambda item: (len(item[0].encode()), item[0].encode()))
        return "{" + ", ".join(f"{stored_text(key)}: {stored_text(value)}" for key, value in items) + "}"
    if isinstance(document, list | tuple):
        return "[" + ", ".join(stored_text(value) for value in document) + "]"
    if document is None or isinstance(document, bool):
        return {None: "null", True: "true", False: "false"}[document]
    if isinstance(document, int):
        return str(int(document))  # an IntEnum's str() is its name
    if isinstance(document, float):
        return format(Decimal(repr(float(document))), "f")
    return stored_text(_DJANGO_JSON.default(document))


def canonical(rows: Iterable[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Rows of MESSAGE_COLUMNS as SQLite returns them (32 hex digits, naive or text timestamps,
    documents as Python wrote them) made as PostgreSQL returns them, the way
    `eventlog.stores.sql.record` reads them."""
    return [
        (
            position, str(UUID(event_id)), stream_id, version, type_, schema_version,
            stored_text(orjson.loads(data)), stored_text(orjson.loads(metadata)),
            parse_timestamp(occurred), parse_timestamp(recorded),
        )
        for position, event_id, stream_id, version, type_, schema_version, data, metadata, occurred, recorded in rows
    ]  # fmt: skip


def _kind(type_: str, stored_version: int) -> tuple[bool, Headers]:
    """Whether events of this type and stored schema version are upcast (`registry.upcast` lifts
    them to the type's version), and their headers after the event id."""
    event_type = find(type_)
    lifted = event_type is not None and stored_version < event_type.schema_version
    schema_version = event_type.schema_version if event_type is not None and lifted else stored_version
    return lifted, [
        ("type", type_.encode()),
        ("schema_version", str(schema_version).encode()),
        ("contract_version", str(CONTRACT_VERSION).encode()),
    ]


def from_message(value: bytes) -> RecordedEvent:
    """The event in a message value, its documents decoded as `read_all` decodes the stored ones (orjson):
    a consumer on Kafka gets the values one on the event table gets."""
    doc: dict[str, Any] = orjson.loads(value)
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
    """The `cart-state` value of a cart: the cart document the API answers with (carts/document.py);
    `names` are the products' names by SKU."""
    return json.dumps(cart_document(state, names)).encode()
