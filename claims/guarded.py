"""Appending to a claim stream only if what was read still holds.

`append_if` reads the stream, lets the caller decide from it what to append
(possibly nothing), and appends at exactly the version it read: if anyone
appended meanwhile (another claim, a decision, a release), the append fails
and the decision is taken again on a fresh read. So two writers that each
check "is this claim still held?" can never both act on a stale answer.
"""

import random
import time
from collections.abc import Callable

from django.db import connections, transaction

from eventlog import store
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent, RecordedEvent

from .appending import MAX_ATTEMPTS

Plan = Callable[[list[RecordedEvent]], list[NewEvent]]


def append_if(
    stream_id: str, plan: Plan, *, on_append: Callable[[list[RecordedEvent]], None] | None = None
) -> tuple[list[RecordedEvent], list[RecordedEvent]]:
    """(the events read, the events appended); `on_append` runs in the append's transaction.

    `plan` may raise to refuse; works inside an outer transaction (each attempt is a savepoint).
    """
    for attempt in range(MAX_ATTEMPTS):
        events = store.read_stream(stream_id)
        new_events = plan(events)
        if not new_events:
            return events, []
        try:
            with transaction.atomic():
                recorded = store.append(stream_id, events[-1].version if events else 0, new_events)
                if on_append is not None:
                    on_append(recorded)
                return events, recorded
        except WrongExpectedVersionError:
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))  # jitter so racers spread out
    raise RuntimeError(f"could not append to {stream_id} after {MAX_ATTEMPTS} attempts")


def take_transaction_id(using: str = "default") -> None:
    """Give the open transaction its id now (PostgreSQL), before it appends more than once.

    `eventlog_append` takes its fast path (a lock held shared) for a transaction's
    first write and its slow path (the same lock, exclusive) after that. A
    transaction whose first write is an append and which appends again would
    upgrade shared -> exclusive while other fast appends wait on its first row:
    a deadlock. With an id from the start, each of its appends takes the slow path.
    """
    connection = connections[using]
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()")
