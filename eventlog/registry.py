"""Event types, their current schema version, and the upcasters of older versions.

Stored events are never rewritten: an event written as schema version 1 stays
so in the table, and `upcast` lifts its data to the current version each time
it is read. The stored `type` is a stable name ("ItemAdded"), never a Python
import path, so moving code never orphans stored data.
"""

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import UnknownEventTypeError

Data = dict[str, Any]
Upcaster = Callable[[Data], Data]


@dataclass(frozen=True)
class EventType:
    name: str
    schema_version: int = 1
    # upcasters[n] lifts data from version n to version n + 1.
    upcasters: dict[int, Upcaster] = field(default_factory=dict)
    description: str = ""
    fields: tuple[str, ...] = ()
    category: str = ""


_types: dict[str, EventType] = {}


def describe(classes: Iterable[Any], category: str) -> list[EventType]:
    """Registry entries for frozen event dataclasses with TYPE and SCHEMA_VERSION:
    their docstring and field names become the event catalog (docs/events.md)."""
    return [
        EventType(
            name=cls.TYPE,
            schema_version=cls.SCHEMA_VERSION,
            description=(cls.__doc__ or "").strip(),
            fields=tuple(f.name for f in dataclasses.fields(cls)),
            category=category,
        )
        for cls in classes
    ]


def register(event_type: EventType) -> None:
    missing = [v for v in range(1, event_type.schema_version) if v not in event_type.upcasters]
    if missing:
        raise ValueError(f"{event_type.name}: no upcaster from schema version(s) {missing}")
    _types[event_type.name] = event_type


def get(name: str) -> EventType:
    try:
        return _types[name]
    except KeyError:
        raise UnknownEventTypeError(name) from None


def all_types() -> list[EventType]:
    return sorted(_types.values(), key=lambda t: (t.category, t.name))


def upcast(name: str, schema_version: int, data: Data) -> tuple[int, Data]:
    """Lift `data` from `schema_version` to the type's current version.

    Types nobody registered pass through untouched: the log may hold events of
    modules this process does not load, and reading must not fail on them.
    """
    event_type = _types.get(name)
    if event_type is None:
        return schema_version, data
    while schema_version < event_type.schema_version:
        data = event_type.upcasters[schema_version](data)
        schema_version += 1
    return schema_version, data
