"""Invariant 3 for a rebuild's lean batches: `read_all_rows` (rebuilds.reader) never skips an event.

PostgreSQL. The two hardest scenarios of test_eventlog_gap_safe_reader, with a follower
reading as a rebuild reads (rows of rebuilds.reader.LEAN_COLUMNS) beside `store.read_all`.
"""

import pytest

from rebuilds.reader import read_rows

from .test_eventlog_gap_safe_reader import (
    Follower,
    HeldWriter,
    committed_positions,
    gap_safe_read,
    poll,
    two_early_ids_around_a_fast_append,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def lean_read(after: int) -> list[int]:
    return [row[0] for row in read_rows(after, 100, ())]


def test_an_event_committed_after_a_later_position_is_still_read_by_a_rebuild() -> None:
    safe, lean = Follower(gap_safe_read), Follower(lean_read)
    slow = HeldWriter().started()  # takes the lower position, stays open
    fast = HeldWriter().started()
    fast.finish()  # the higher position commits first
    poll(safe, lean)
    assert lean.seen == safe.seen == []  # neither passes the open lower position
    slow.finish()
    safe.catch_up(2)
    lean.catch_up(2)

    assert lean.seen == safe.seen == committed_positions() and len(lean.seen) == 2


def test_two_writers_that_took_their_ids_before_appending_never_make_a_rebuild_skip() -> None:
    safe, lean = Follower(gap_safe_read), Follower(lean_read)

    def same_so_far() -> None:
        assert lean.seen == safe.seen

    two_early_ids_around_a_fast_append(safe, lean, midway=same_so_far)

    assert lean.seen == safe.seen == committed_positions() and len(lean.seen) == 3
