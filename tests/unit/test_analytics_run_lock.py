"""When a run asked for at some moment has nothing left to do (analytics/run_lock.py: answered_already)."""

from datetime import UTC, datetime, timedelta

from analytics.run_lock import answered_already

QUEUED = datetime(2026, 11, 28, 13, 0, 3, tzinfo=UTC)


def test_tables_loaded_after_the_run_was_queued_answer_it() -> None:
    reason = answered_already(QUEUED, QUEUED + timedelta(seconds=20))
    assert reason == (
        "it was queued at 2026-11-28T13:00:03+00:00 and a run that ended at 2026-11-28T13:00:23+00:00 covers it "
        "(it was in progress, or started since); this one is skipped"
    )


def test_tables_loaded_before_it_was_queued_leave_it_to_run() -> None:
    assert answered_already(QUEUED, QUEUED - timedelta(seconds=1)) is None
    assert answered_already(QUEUED, QUEUED) is None


def test_no_run_yet_or_a_message_without_its_time_runs() -> None:
    assert answered_already(QUEUED, None) is None
    assert answered_already(None, QUEUED) is None
