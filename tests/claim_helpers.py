"""Running the claim consumers for a test: real threads, the table transport."""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from accounts.account_creator import AccountCreator
from claims.validator import Validator
from consumers import runner
from consumers.base import Consumer, ProjectionConsumer
from consumers.registry import transport_factory
from projections import registry


@contextmanager
def claim_consumers_running(
    idle_seconds: float = 0.02, *, with_projections: bool = False, transport: str = "table"
) -> Iterator[threading.Event]:
    """The validator and the account creator (and, if asked, the async projections
    such as order_history behind "My orders") in threads until the block ends.

    On the Kafka transport the relay runs too: it is what feeds the topics."""
    stop = threading.Event()
    threads = []
    if transport == "kafka":
        from relay.relay import run_forever

        threads.append(threading.Thread(target=run_forever, args=(stop,), daemon=True))
        threads[-1].start()
    consumers: list[Consumer] = [Validator(), AccountCreator()]
    if with_projections:
        consumers += [ProjectionConsumer(p) for p in registry.asynchronous()]
    for consumer in consumers:
        worker = runner.Worker(
            consumer=consumer, transport_factory=transport_factory(transport), stop=stop, idle_seconds=idle_seconds
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
