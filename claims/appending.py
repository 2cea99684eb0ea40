"""Appending to a claim stream without an expected version.

Claimants never lose a race on the stream itself: appends to one key are
serialized by version, and a conflict just means "read the version again".
"""

import random
import time

from django.db import transaction

from eventlog import store
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent, RecordedEvent

MAX_ATTEMPTS = 200


def append_any_version(stream_id: str, event: NewEvent) -> RecordedEvent:
    """Append at whatever version the stream has now, retrying on conflict.

    Works inside an outer transaction too: each attempt is its own savepoint.
    """
    for attempt in range(MAX_ATTEMPTS):
        try:
            with transaction.atomic():
                return store.append(stream_id, store.stream_version(stream_id), [event])[0]
        except WrongExpectedVersionError:
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))  # jitter so racers spread out
    raise RuntimeError(f"could not append to {stream_id} after {MAX_ATTEMPTS} attempts")
