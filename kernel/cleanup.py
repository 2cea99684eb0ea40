"""Cleaning up after a failure without hiding it.

A long-running loop (a consumer's worker, the relay, the relay's reader) closes its
database session and releases what it holds when it stops or after an error, so the
next turn starts on a fresh connection. Closing a connection an outage broke can fail
too; that second failure says nothing new and must not replace the first.
"""

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


def quietly(action: Callable[[], object] | None) -> None:
    """Run one clean-up step (a close, a release); its own failure is logged at debug, never raised."""
    if action is None:
        return
    try:
        action()
    except Exception:
        log.debug("cleanup failed: %s", getattr(action, "__qualname__", action), exc_info=True)
