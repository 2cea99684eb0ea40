"""A process that finds a lease held says so once, instead of starting and then falling silent."""

import logging

import pytest

from consumers.lease import Lease

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_a_second_runner_says_once_that_it_stands_by_and_takes_over_when_free(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="consumers.lease")
    first, second = Lease("consumer:relay"), Lease("consumer:relay")
    try:
        assert first.acquire()
        assert not second.acquire() and not second.acquire() and not second.acquire()
        standing_by = [r.getMessage() for r in caplog.records if "stands by" in r.getMessage()]
        assert len(standing_by) == 1
        assert standing_by[0].startswith("lease consumer:relay is held by another process; pid ")
        first.release()
        assert second.acquire()
        assert [r.getMessage() for r in caplog.records][-1].startswith("lease consumer:relay acquired by pid")
    finally:
        first.release()
        second.release()
