"""Capped exponential backoff with jitter.

Every loop that touches the database or the broker (consumers, the relay, the
announcer of appends) waits `Backoff.next()` after a failure: 0.5 s doubling up
to a cap, each wait drawn between half and all of it so that many threads that
failed together (one database restart) do not all come back in the same instant.
Which errors are worth a retry at all is consumers/fatal.py's.
"""

import random
from dataclasses import dataclass


@dataclass
class Backoff:
    base: float = 0.5
    cap: float = 5.0
    failures: int = 0

    def next(self) -> float:
        """The wait before the next attempt (and count this failure)."""
        ceiling = min(self.cap, self.base * 2**self.failures)
        self.failures = min(self.failures + 1, 32)
        return random.uniform(ceiling / 2, ceiling)

    def reset(self) -> None:
        self.failures = 0
