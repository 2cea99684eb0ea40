"""What goes into the log (`NewEvent`) and what comes out of it (`RecordedEvent`)."""

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

if TYPE_CHECKING:
    from .codec import DomainEvent


@dataclass(frozen=True, kw_only=True)
class NewEvent:
    """An event about to be appended; the store gives it a version and a position."""

    type: str
    data: dict[str, Any]
    occurred_at: datetime
    schema_version: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)
    event_id: UUID = field(default_factory=uuid4)

    def recorded(self, *, position: int, stream_id: str, version: int, recorded_at: datetime) -> "RecordedEvent":
        """This event as the log returns it from the append that stored it."""
        return RecordedEvent(
            position=position,
            event_id=self.event_id,
            stream_id=stream_id,
            version=version,
            type=self.type,
            schema_version=self.schema_version,
            data=self.data,
            metadata=self.metadata,
            occurred_at=self.occurred_at,
            recorded_at=recorded_at,
        )


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

    @cached_property
    def domain_event(self) -> "DomainEvent | None":
        """The typed event (`eventlog.codec.decode`), for `match`; None for an unregistered type."""
        from .codec import decode  # the codec builds records: imported late, not in a cycle

        return decode(self)
