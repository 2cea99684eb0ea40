"""The one codec between domain events and what the log stores: (type, schema_version, data).

Domain events are frozen dataclasses with `TYPE` and `SCHEMA_VERSION`, registered
by their domain (`registry.describe`, wired in `cartlog.bootstrap`). Money
(`Decimal`) is stored as a decimal string and datetimes as ISO 8601 text, so
the stored JSON is exact; on the way back each field gets its annotated type
again. Older data is upcast first, then the type's backfill fills what older
writers left out, then missing fields take the dataclass defaults.
"""

import dataclasses
import types
import typing
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any, ClassVar, Protocol
from uuid import uuid4

from . import registry
from .records import NewEvent, RecordedEvent
from .registry import Data


class DomainEvent(Protocol):
    """What the codec needs of an event class: a frozen dataclass with a stable name."""

    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int]
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]


def encode(event: DomainEvent) -> tuple[str, int, Data]:
    """`event` as the log stores it: its type name, schema version and JSON-ready data."""
    data = {name: _plain(getattr(event, name)) for name in _field_names(type(event))}
    return event.TYPE, event.SCHEMA_VERSION, data


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A class's fields, worked out once: every command encodes its events."""
    return tuple(f.name for f in dataclasses.fields(cls))


def to_new_event(event: DomainEvent, *, metadata: dict[str, Any], occurred_at: datetime) -> NewEvent:
    type_, schema_version, data = encode(event)
    return NewEvent(type=type_, schema_version=schema_version, data=data, metadata=metadata, occurred_at=occurred_at)


def command_metadata(
    command: object,
    *,
    actor: str,
    command_id: str | None = None,
    correlation_id: str | None = None,
    causation_id: str | None = None,
) -> dict[str, Any]:
    """The envelope every command handler writes beside its events: which command (a fresh id if none is
    given), who sent it, and the chain it belongs to (correlation: the first command; causation: the
    event or claim that led to it)."""
    command_id = command_id or str(uuid4())
    return {
        "command_id": command_id,
        "command": type(command).__name__,
        "correlation_id": correlation_id or command_id,
        "causation_id": causation_id,
        "actor": actor,
    }


def decode(recorded: RecordedEvent) -> DomainEvent | None:
    """The domain event a stored one holds; None for a type no module registered a class for."""
    return decode_stored(recorded.type, recorded.schema_version, recorded.data)


def decode_stored(type_: str, schema_version: int, data: Data) -> DomainEvent | None:
    """Like `decode`, from the stored parts (upcast here if they are older than the class)."""
    event_type = registry.find(type_)
    if event_type is None or event_type.cls is None:
        return None
    if schema_version < event_type.schema_version:
        schema_version, data = registry.upcast(type_, schema_version, data)
    if event_type.backfill is not None:
        data = event_type.backfill(data)
    return _decoder(event_type.cls)(data)


@cache
def _decoder(cls: type) -> Callable[[Data], DomainEvent]:
    """A function building `cls` from its data, the type conversions worked out once per class."""
    hints = typing.get_type_hints(cls)
    fields = [(f.name, _converter(hints[f.name])) for f in dataclasses.fields(cls)]

    def build(data: Data) -> DomainEvent:
        values = {name: (convert(data[name]) if convert else data[name]) for name, convert in fields if name in data}
        event: DomainEvent = cls(**values)
        return event

    return build


def _converter(annotation: Any) -> Callable[[Any], Any] | None:
    """How a stored JSON value becomes the annotated type; None when it already is one."""
    if annotation is Decimal:
        return Decimal
    if annotation is datetime:
        return datetime.fromisoformat
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        convert = _converter(inner[0]) if len(inner) == 1 else None
        if convert is not None:
            return lambda value: None if value is None else convert(value)
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
