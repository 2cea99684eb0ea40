"""Event types: their class, current schema version, and the upcasters of older versions.

Stored events are never rewritten: an event written as schema version 1 stays
so in the table, and `upcast` lifts its data to the current version each time
it is read. The stored `type` is a stable name ("ItemAdded"), never a Python
import path, so moving code never orphans stored data. `eventlog.codec` turns
the data into the registered class and back.

Each domain describes its own types beside its event classes (`describe`, in its
`events.py: event_types`, upcasters included), and `cartlog.bootstrap` registers them
at start; `register` refuses a type whose older versions lack an upcaster, so that
mistake stops the process before any event is read. An upcaster is for a new schema
version; a field added without one is filled by the type's `backfill`, else by its
dataclass default (`eventlog.codec.decode_stored`). A worked example: docs/extending.md.
"""

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

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
    cls: type | None = None  # the domain event class `eventlog.codec` decodes into
    # Fills what writers of the *current* schema version once left out (a field
    # added without a version bump); missing fields then take the class defaults.
    backfill: Upcaster | None = None


_types: dict[str, EventType] = {}


def describe(
    classes: Iterable[Any],
    category: str,
    *,
    upcasters: Mapping[type, dict[int, Upcaster]] | None = None,
    backfills: Mapping[type, Upcaster] | None = None,
) -> list[EventType]:
    """Registry entries for frozen event dataclasses with TYPE and SCHEMA_VERSION:
    their docstring and field names become the event catalog (docs/events.md)."""
    return [
        EventType(
            name=cls.TYPE,
            schema_version=cls.SCHEMA_VERSION,
            upcasters=dict((upcasters or {}).get(cls, {})),
            description=(cls.__doc__ or "").strip(),
            fields=tuple(f.name for f in dataclasses.fields(cls)),
            category=category,
            cls=cls,
            backfill=(backfills or {}).get(cls),
        )
        for cls in classes
    ]


def register(event_type: EventType) -> None:
    missing = [v for v in range(1, event_type.schema_version) if v not in event_type.upcasters]
    if missing:
        raise ValueError(f"{event_type.name}: no upcaster from schema version(s) {missing}")
    _types[event_type.name] = event_type


def find(name: str) -> EventType | None:
    """The registered type, or None: the log may hold types this process does not load."""
    return _types.get(name)


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
