"""Forgetting a person: destroy their data keys and record it, in one transaction.

The log keeps every event; only the keys go, so every personal field ever
sealed for the person reads `[erased]` from then on, in every view and on
every rebuild. `accounts/forgetting.py` adds what an account needs besides.
"""

from datetime import datetime

from django.db import transaction

from eventlog import codec, store
from eventlog.records import RecordedEvent

from . import keys, streams
from .events import PersonForgotten


def forget(person: str, *, actor: str, at: datetime) -> RecordedEvent:
    """Destroy the person's keys and append `PersonForgotten` to `person-<principal>`."""
    with transaction.atomic():
        stream = streams.stream_id(person)
        store.lock_stream(stream)  # two forgets at once append one after the other
        event = PersonForgotten(person=person, keys_destroyed=keys.destroy(person))
        new = codec.to_new_event(event, metadata={"actor": actor, "command": "ForgetPerson"}, occurred_at=at)
        return store.append(stream, store.stream_version(stream), [new])[0]
