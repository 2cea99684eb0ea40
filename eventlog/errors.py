"""Errors the log raises. Domain code maps them to its own errors."""


class EventLogError(Exception):
    """Base class for everything the event log refuses."""


class WrongExpectedVersionError(EventLogError):
    """An append stated a stream version that is no longer the current one (invariant 2)."""

    def __init__(self, stream_id: str, expected: int, actual: int | None = None) -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        found = "" if actual is None else f", found {actual}"
        super().__init__(f"stream {stream_id!r}: expected version {expected}{found}")


class UnknownEventTypeError(EventLogError):
    """An event type that no module registered."""


class AppendOrderError(EventLogError):
    """Raised if an append's transaction state breaks the gap-safety protocol."""
