"""Hand-made `RecordedEvent`s: a projection's input with positions and versions written out.

The projection tests state what the log holds in literals, so the rows they expect can
be written as literals too (nothing in them is computed by the code under test).
"""

from datetime import UTC, datetime, timedelta
from uuid import uuid4

from eventlog import codec
from eventlog.codec import DomainEvent
from eventlog.records import RecordedEvent

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def at(minute: int) -> datetime:
    """The event time `minute` minutes after T0: each event below gets its own, readable in expectations."""
    return T0 + timedelta(minutes=minute)


def recorded(position: int, stream_id: str, version: int, event: DomainEvent) -> RecordedEvent:
    """Event number `position` of the log, version `version` of `stream_id`, which happened at `at(position)`."""
    type_, schema_version, data = codec.encode(event)
    return RecordedEvent(
        position=position,
        event_id=uuid4(),
        stream_id=stream_id,
        version=version,
        type=type_,
        schema_version=schema_version,
        data=data,
        metadata={},
        occurred_at=at(position),
        recorded_at=at(position),
    )
