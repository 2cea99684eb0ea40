"""A process that finds a lease held says so once, instead of starting and then falling silent."""

import logging

import pytest
from django.db import connection

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


def test_a_lease_whose_session_was_cut_says_lost_not_held_by_another_and_is_taken_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After a database outage the holder logged "LOST ... standing by" and at once "is held by another
    process; pid N stands by", though nothing else held it."""
    caplog.set_level(logging.INFO, logger="consumers.lease")
    lease = Lease("consumer:relay")
    try:
        assert lease.acquire()
        with connection.cursor() as cursor:  # the server ends the lease's own session, as a restart would
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE %s",
                ["cartlog-lease consumer:relay%"],
            )
        assert not lease.acquire()  # this turn it stands by (a spare may take it meanwhile)
        assert lease.acquire()  # nobody did: taken again
        said = [r.getMessage() for r in caplog.records]
        assert [m.split(" by pid")[0] for m in said] == [
            "lease consumer:relay acquired",
            "lease consumer:relay LOST",
            "lease consumer:relay acquired",
        ], said
    finally:
        lease.release()


def test_a_caller_that_gives_up_on_a_held_lease_does_not_say_it_stands_by(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="consumers.lease")
    holder, quitter = Lease("rebuild:cart_view"), Lease("rebuild:cart_view", waits=False)
    try:
        assert holder.acquire()
        assert not quitter.acquire()
        assert [r.getMessage() for r in caplog.records if "stands by" in r.getMessage()] == []
    finally:
        holder.release()
        quitter.release()
