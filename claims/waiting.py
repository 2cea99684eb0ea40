"""Waiting in a request for the validator's word: short, and only a few at a time.

A waiting request holds one of the web server's threads. Waits are bounded by
CLAIM_WAIT_SECONDS (short by default), and at most CLAIM_MAX_WAITERS requests
per process wait at once: beyond that a request looks once and answers at
once (202 or 503), so waiting sign-ups or checkouts can never take every
thread from the catalog when the validator is slow or down.
"""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings

from .models import Claim, ClaimStatus

DECIDED = {ClaimStatus.ACCEPTED, ClaimStatus.REJECTED, ClaimStatus.RELEASED, ClaimStatus.USED}


class _Waiters:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    @contextmanager
    def slot(self) -> Iterator[bool]:
        """True if this request may wait; the limit is read each time (settings can change in tests)."""
        with self._lock:
            granted = self.count < settings.CLAIM_MAX_WAITERS
            if granted:
                self.count += 1
        try:
            yield granted
        finally:
            if granted:
                with self._lock:
                    self.count -= 1


WAITERS = _Waiters()


def is_decided(claim: Claim) -> bool:
    return claim.status in DECIDED


def wait(
    claim_id: str, timeout: float | None = None, *, poll: float = 0.02, until: Callable[[Claim], bool] = is_decided
) -> Claim | None:
    """The claim once `until` holds for it, or as it stands when the wait ends (None if unknown).

    With every waiting slot taken it looks once and returns at once.
    """
    with WAITERS.slot() as may_wait:
        deadline = time.monotonic() + (settings.CLAIM_WAIT_SECONDS if timeout is None else timeout)
        while True:
            claim = Claim.objects.filter(claim_id=claim_id).first()
            if (claim and until(claim)) or not may_wait or time.monotonic() >= deadline:
                return claim
            time.sleep(poll)
