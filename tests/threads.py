"""Work started on several threads at one moment, each on a database connection of its own."""

import threading
from collections.abc import Callable

from django.db import connections


def run_together(count: int, work: Callable[[int], None]) -> list[BaseException]:
    """Start `count` threads at one barrier, each calling `work(its index)`; what they raised.
    Each closes its own connections."""
    barrier = threading.Barrier(count)
    failures: list[BaseException] = []

    def body(index: int) -> None:
        try:
            barrier.wait(10)
            work(index)
        except BaseException as error:
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    return failures
