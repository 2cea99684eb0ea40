"""What a consumer is: a name, the stream categories it reads, and a batch handler.

`handle(events)` runs inside the transaction that also moves the consumer's
checkpoint, so its view rows and its checkpoint commit together (invariant 6).
Events at or below the checkpoint never reach it: redelivery changes nothing.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from eventlog.records import RecordedEvent
from projections.registry import Projection


class Consumer(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def categories(self) -> tuple[str, ...]:
        """Stream categories it reads ("cart", "claim"); () = all."""
        ...

    def handle(self, events: Sequence[RecordedEvent]) -> None: ...


@dataclass(frozen=True)
class ProjectionConsumer:
    """Runs an async projection (`projections.registry.Projection`) as a consumer."""

    projection: Projection

    @property
    def name(self) -> str:
        return str(self.projection.NAME)

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(self.projection.CATEGORIES)

    def handle(self, events: Sequence[RecordedEvent]) -> None:
        self.projection.apply(events)
