"""Python's cyclic garbage collector, made to run less while a rebuild folds.

A batch's events, states and rows all live until the batch is written, so the
collector, run every 700 allocations by default, kept promoting them and then
scanning them, with every other object the process holds, again and again:
about 40 % of a rebuild's Python time (docs/rebuilding.md, "Speed"). While a
rebuild runs, the objects that existed when it began are frozen (left out of
every collection) and the youngest generation is collected every 10,000
allocations; both are undone when the last rebuild running in the process ends.
Garbage is still collected, only in larger steps.
"""

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (10_000, 20, 20)

_lock = threading.Lock()
_running = 0
_saved = gc.get_threshold()


@contextmanager
def fewer_collections() -> Iterator[None]:
    global _running, _saved
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(*THRESHOLDS)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_saved)
                gc.unfreeze()
