"""Running the claim consumers for a test: real threads, the table transport."""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from accounts.account_creator import AccountCreator
from claims.validator import Validator
from consumers import runner
from consumers.transports import TableTransport


@contextmanager
def claim_consumers_running(idle_seconds: float = 0.02) -> Iterator[threading.Event]:
    """The validator and the account creator in threads until the block ends."""
    stop = threading.Event()
    threads = []
    for consumer in (Validator(), AccountCreator()):
        worker = runner.Worker(
            consumer=consumer, transport_factory=TableTransport, stop=stop, idle_seconds=idle_seconds
        )
        thread = threading.Thread(target=worker, daemon=True)
        thread.start()
        threads.append(thread)
    try:
        yield stop
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)


def eventually(condition: Callable[[], object], timeout: float = 15.0) -> None:
    """Wait until `condition()` is truthy (consumers work asynchronously), or fail."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout}s: {condition}")
        time.sleep(0.02)
