"""kernel.cleanup.quietly: a clean-up step's own failure never replaces the error that led to it."""

import logging

import pytest

from kernel.cleanup import quietly


def test_a_step_that_succeeds_runs_once() -> None:
    ran: list[str] = []
    quietly(lambda: ran.append("closed"))
    assert ran == ["closed"]


def test_a_failing_step_is_logged_at_debug_and_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def close() -> None:
        raise ConnectionResetError("the server closed the connection")

    with caplog.at_level(logging.DEBUG, logger="kernel.cleanup"):
        quietly(close)  # raising here would fail the test
    (record,) = caplog.records
    assert record.levelno == logging.DEBUG
    assert "close" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is ConnectionResetError


def test_no_step_is_nothing_to_do(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="kernel.cleanup"):
        quietly(None)  # a transport or a lease the worker never got
    assert caplog.records == []
