"""Capped exponential backoff with jitter, and which errors a loop may retry.

Every loop that touches the database or the broker (consumers, the relay)
waits `Backoff.next()` after a failure: 0.5 s doubling up to a cap, each wait
drawn between half and all of it so that many threads that failed together
(one database restart) do not all come back in the same instant.
"""

import random
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured

# Errors of the code or its configuration: no retry can fix them, a new deploy can.
# A loop lets these through; the process exits and its supervisor restarts it.
FATAL: tuple[type[BaseException], ...] = (ImportError, NameError, SyntaxError, ImproperlyConfigured)


def is_fatal(error: BaseException) -> bool:
    return isinstance(error, FATAL) or not isinstance(error, Exception)


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
