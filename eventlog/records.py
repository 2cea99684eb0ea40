"""What goes into the log (`NewEvent`) and what comes out of it (`RecordedEvent`)."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4


@dataclass(frozen=True, kw_only=True)
class NewEvent:
    """An event about to be appended; the store gives it a version and a position."""

    type: str
    data: dict[str, Any]
    occurred_at: datetime
    schema_version: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)
    event_id: UUID = field(default_factory=uuid4)


@dataclass(frozen=True, kw_only=True)
class RecordedEvent:
    """An event as the log holds it, upcast to its current schema version."""

    position: int
    event_id: UUID
    stream_id: str
    version: int
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    occurred_at: datetime
    recorded_at: datetime

    @property
    def category(self) -> str:
        """`cart-1234` -> `cart`: the part of the stream id before the first dash."""
        return self.stream_id.split("-", 1)[0]
