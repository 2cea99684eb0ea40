"""How far a consumer's view reaches in the log, and a bounded wait for it to reach a position.

Read-your-writes on a view a consumer updates after the command: the command
answers with the position of its last event, and a reader that must see that
write waits until the consumer's position is at or past it. The position is
the one `checkpoints.position_of` reports for the consumer on the transport it
runs on (the table's checkpoint, or the lowest per-partition progress on Kafka).
"""

import time
from collections.abc import Callable

from . import checkpoints, heartbeat, registry

POLL_SECONDS = 0.05


def reader(name: str) -> Callable[[], int]:
    """Reads the last log position consumer `name` has surely applied (found once, read on each call)."""
    consumer = next((c for c in registry.all_consumers() if c.name == name), None)
    _, transport = heartbeat.running(name)  # the transport it runs on, as operators see it
    on = transport or registry.default_transport()
    return lambda: checkpoints.position_of(consumer, name, on)


def position(name: str) -> int:
    return reader(name)()


def wait_for(read: Callable[[], int], wanted: int, seconds: float) -> int:
    """Poll `read()` until it reaches `wanted` or `seconds` pass; the last position read."""
    deadline = time.monotonic() + seconds
    reached = read()
    while reached < wanted and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        reached = read()
    return reached
