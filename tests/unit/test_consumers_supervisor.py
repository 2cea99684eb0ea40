"""The supervisor restarts a consumer thread that died, and gives up only on a fatal error."""

import threading
import time

import pytest

from consumers.supervisor import FatalError, Supervisor
from kernel.backoff import Backoff


def test_backoff_doubles_to_its_cap_with_jitter_and_resets() -> None:
    backoff = Backoff(base=0.5, cap=5.0)
    waits = [backoff.next() for _ in range(8)]
    assert 0.25 <= waits[0] <= 0.5
    assert all(2.5 <= wait <= 5.0 for wait in waits[4:])
    backoff.reset()
    assert backoff.next() <= 0.5


def test_a_thread_that_dies_is_restarted_and_a_fatal_error_ends_the_watch() -> None:
    stop = threading.Event()
    runs: list[float] = []

    def flaky() -> None:
        runs.append(time.monotonic())
        if len(runs) < 3:
            raise RuntimeError("connection reset")
        if len(runs) == 3:
            raise ImportError("a broken deploy")

    supervisor = Supervisor(stop, check_every=0.01)
    supervisor.start("consumer flaky", flaky)
    with pytest.raises(FatalError, match="broken deploy"):
        supervisor.watch(join_timeout=5)
    assert len(runs) == 3 and supervisor.restarts == 2
    assert stop.is_set()


def test_watch_returns_when_stopped() -> None:
    stop = threading.Event()
    supervisor = Supervisor(stop, check_every=0.01)
    supervisor.start("consumer idle", lambda: stop.wait(10))
    threading.Timer(0.1, stop.set).start()
    supervisor.watch(join_timeout=5)
    assert supervisor.restarts == 0
