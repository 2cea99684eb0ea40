"""Errors the log raises. Domain code maps them to its own errors."""

from .records import RecordedEvent


class EventLogError(Exception):
    """Base class for everything the event log refuses."""


class WrongExpectedVersionError(EventLogError):
    """An append stated a stream version that is no longer the current one (invariant 2).

    `missed`: when the append asked for them (`catch_up`), the stream's events after the
    expected version, oldest first, at most `catch_up` of them (so possibly not all); empty
    if the stream is not beyond the expected version; None when not asked for or not known.
    """

    def __init__(
        self, stream_id: str, expected: int, actual: int | None = None, *, missed: list[RecordedEvent] | None = None
    ) -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        self.missed = missed
        found = "" if actual is None else f", found {actual}"
        super().__init__(f"stream {stream_id!r}: expected version {expected}{found}")


class AppendsNotHeldError(EventLogError):
    """`hold_appends` was asked for outside a transaction: the hold would end at once."""


class RowConflictError(EventLogError):
    """A row written with an append (eventlog.alongside) found its key taken by another
    transaction: nothing was appended. An idempotency record, for one: the same command
    committed first."""

    def __init__(self, table: str) -> None:
        self.table = table
        super().__init__(f"a row of {table} written with the append was already there")
