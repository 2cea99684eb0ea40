"""Waiting for the gap-safe reader.

`store.read_all` returns only events older than the oldest write transaction
running anywhere on the PostgreSQL server (docs/adr/0002): right after a
commit, another session's open transaction can hide it for a moment.
"""

import time

from eventlog import store


def wait_until_readable(timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    head = store.head_position()
    while head and not store.read_all(head - 1, 1):
        assert time.monotonic() < deadline, "the head of the log never became readable"
        time.sleep(0.05)
