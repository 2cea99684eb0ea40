"""Facts about a person, in the past tense; they carry the principal, never personal data."""

from dataclasses import dataclass
from typing import ClassVar

from eventlog.registry import EventType, describe


@dataclass(frozen=True, kw_only=True)
class PersonForgotten:
    """The person's data keys were destroyed: every personal field sealed under them now reads `[erased]`."""

    TYPE: ClassVar[str] = "PersonForgotten"
    SCHEMA_VERSION: ClassVar[int] = 1
    person: str
    keys_destroyed: int


def event_types() -> list[EventType]:
    """The registry entries for the person streams (the event catalog is generated from these)."""
    return describe([PersonForgotten], category="person")
