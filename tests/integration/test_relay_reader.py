"""The relay's reader (relay/reader.py): a batch read ahead is the batch a read would return, and
a reader that caught up holds no connection of its own."""

import threading
import time
from typing import Any

import pytest
from django.db import connection

from eventlog import store
from relay.reader import Reader, read_rows
from tests.store_contract import WAIT, new, stream

pytestmark = pytest.mark.django_db(transaction=True)


def appended(count: int) -> int:
    """Append `count` events; the position before them, once `read_rows` sees them all."""
    start = store.head_position()
    store.append(stream(), 0, [new(n=n) for n in range(count)])
    deadline = time.monotonic() + WAIT  # another transaction on a shared server may hold reads back a while
    while len(read_rows(start, count)) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return start


def thread_connected(reader: Reader) -> bool:
    return bool(reader.pool.submit(lambda: connection.connection is not None).result())


def test_batches_read_ahead_are_the_batches_a_read_returns_and_catching_up_closes_the_threads_connection() -> None:
    start = appended(5)
    reader = Reader(limit=2)
    try:
        batches, after = [], start
        while batch := reader.read(after):
            if len(batch) == 2:
                assert reader.ahead is not None and reader.ahead[0] == batch[-1][0], "the next one is on its way"
            batches.append(batch)
            after = batch[-1][0]
        assert [len(batch) for batch in batches] == [2, 2, 1]
        assert [row for batch in batches for row in batch] == read_rows(start, 100)
        assert reader.ahead is None and not thread_connected(reader)
    finally:
        reader.close()


def test_a_read_ahead_that_failed_fails_the_next_read_and_leaves_nothing_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = appended(3)

    def refused_in_the_thread(after: int, limit: int) -> list[tuple[Any, ...]]:
        if threading.current_thread().name.startswith("relay-read"):
            raise OSError("the database went away")
        return read_rows(after, limit)

    monkeypatch.setattr("relay.reader.read_rows", refused_in_the_thread)
    reader = Reader(limit=2)
    try:
        first = reader.read(start)  # read here, the next one ahead: refused
        with pytest.raises(OSError):
            reader.read(first[-1][0])
        assert reader.ahead is None
        monkeypatch.undo()
        assert reader.read(first[-1][0]) == read_rows(first[-1][0], 2)
    finally:
        reader.close()
