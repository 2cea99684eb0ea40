"""Invariant 3 for a rebuild's lean batches: `read_all_rows` (rebuilds.reader) never skips an event.

PostgreSQL. The two hardest scenarios of test_eventlog_gap_safe_reader, with a follower
reading as a rebuild reads (rows of rebuilds.reader.LEAN_COLUMNS) beside `store.read_all`.
"""

import pytest

from rebuilds.reader import read_rows

from .test_eventlog_gap_safe_reader import (
    WAIT,
    Follower,
    HeldWriter,
    committed_positions,
    gap_safe_read,
    poll,
    write_first,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def lean_read(after: int) -> list[int]:
    return [row[0] for row in read_rows(after, 100, ())]


def test_an_event_committed_after_a_later_position_is_still_read_by_a_rebuild() -> None:
    safe, lean = Follower(gap_safe_read), Follower(lean_read)
    slow, fast = HeldWriter(), HeldWriter()
    slow.start()
    assert slow.appended.wait(WAIT)  # takes the lower position, stays open
    fast.start()
    assert fast.appended.wait(WAIT)
    fast.finish()  # the higher position commits first
    poll(safe, lean)
    assert lean.seen == safe.seen == []  # neither passes the open lower position
    slow.finish()
    safe.catch_up(2)
    lean.catch_up(2)

    assert lean.seen == safe.seen == committed_positions() and len(lean.seen) == 2


def test_two_writers_that_took_their_ids_before_appending_never_make_a_rebuild_skip() -> None:
    safe, lean = Follower(gap_safe_read), Follower(lean_read)
    first = HeldWriter(before=write_first)
    first.start()
    assert first.has_xid.wait(WAIT)
    second = HeldWriter(before=write_first)  # an id between the first's and the fast append's
    second.start()
    assert second.has_xid.wait(WAIT)
    fast = HeldWriter()
    fast.start()
    assert fast.appended.wait(WAIT)
    first.go.set()
    first.release.set()  # appends once the fast append has committed, then commits
    fast.finish()
    assert first.committed.wait(WAIT)
    poll(safe, lean)  # the second is open: the fast append's event is committed but not safe yet
    assert lean.seen == safe.seen
    second.go.set()
    second.finish()
    safe.catch_up(3)
    lean.catch_up(3)

    assert lean.seen == safe.seen == committed_positions() and len(lean.seen) == 3
