"""One rebuild per view at a time, and a rebuild right after another of the same view is not refused.

On PostgreSQL the `rebuild:<name>` lease is an advisory lock held by a session
of its own; releasing it closes that session, and the server ends it (and
frees the lock) a moment after `release` returned. A rebuild started at once
after another (a --verify, then the swap, in one process: a Celery worker,
`run_consumers`, a test) was refused as "running in another process" about
once in a hundred; the test suite's rebuild-then-verify tests failed so.
"""

import pytest

from rebuilds.runs import RebuildBusyError, take_lease

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_a_lease_just_released_is_taken_again_every_time(db: None) -> None:
    refused = 0
    for _ in range(500):
        try:
            take_lease("cart_view").release()
        except RebuildBusyError:
            refused += 1
    assert refused == 0


def test_a_lease_held_is_refused_after_a_short_wait(db: None) -> None:
    held = take_lease("cart_view")
    try:
        with pytest.raises(RebuildBusyError, match="a rebuild of 'cart_view' is running in another process"):
            take_lease("cart_view", patience=0.1)
    finally:
        held.release()
