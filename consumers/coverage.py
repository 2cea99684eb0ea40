"""How far a consumer's view reaches in the log, and a bounded wait for it to reach a position.

Read-your-writes on a view a consumer updates after the command: the command
answers with the position of its last event, and a reader that must see that
write waits until the consumer's position is at or past it. The position is
the one `checkpoints.position_of` reports for the consumer on the transport it
runs on, unless the transport knows better: on Kafka, partitions interleave, so
the lowest partition's progress understates it; the Kafka transport installs
its own reading (`relay/kafka_transport.py: covered`) into `consumers/registry.py`.
"""

import time
from collections.abc import Callable

from . import checkpoints, registry

POLL_SECONDS = 0.05


def reader(name: str) -> Callable[[], int]:
    """Reads the last log position consumer `name` has surely applied (found once, read on each call)."""
    consumer = registry.find(name)
    on = registry.default_transport()  # the process's setting: a heartbeat may be left from another run
    return lambda: position_on(consumer, name, on)


def position_on(consumer: object, name: str, transport: str) -> int:
    """The last position P such that every event up to P that `name` reads on `transport` is applied."""
    covered = registry.coverage(transport)
    if covered is None or isinstance(consumer, checkpoints.KeepsOwnPosition):
        return checkpoints.position_of(consumer, name, transport)
    return covered(name)


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
