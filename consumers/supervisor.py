"""Threads that come back: a consumer (or relay) thread that dies is logged with its reason and restarted.

The worker loops retry every failure of the database or the broker by
themselves (consumers/runner.py); a thread still dies if something escapes
that loop. `Supervisor.watch` notices, logs why, and starts it again after a
capped, jittered backoff. A fatal error (consumers/fatal.py: FATAL, a broken
deploy) is not retried here: `watch` stops every thread and raises, the
process exits non-zero, and its own supervisor (scripts/run.sh, the compose
restart policy) starts a fresh process.
"""

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kernel.backoff import Backoff

from .fatal import is_fatal

log = logging.getLogger(__name__)
STEADY_SECONDS = 60.0


class FatalError(Exception):
    """A supervised thread died of an error no restart can fix."""


@dataclass
class _Supervised:
    target: Callable[[], object]
    thread: threading.Thread
    backoff: Backoff = field(default_factory=lambda: Backoff(base=1.0, cap=30.0))
    restart_at: float | None = None
    died_of: BaseException | None = None
    started_at: float = 0.0


class Supervisor:
    def __init__(self, stop: threading.Event, check_every: float = 0.5) -> None:
        self.stop = stop
        self.check_every = check_every
        self.children: dict[str, _Supervised] = {}
        self.restarts = 0

    def start(self, name: str, target: Callable[[], object]) -> None:
        child = _Supervised(target=target, thread=threading.Thread())
        self.children[name] = child
        self._launch(name, child)

    def _launch(self, name: str, child: _Supervised) -> None:
        def guarded() -> None:
            try:
                child.target()
            except BaseException as error:
                child.died_of = error
                log.exception("%s died: %s", name, error)

        child.died_of = None
        child.restart_at = None
        child.started_at = time.monotonic()
        child.thread = threading.Thread(target=guarded, name=name, daemon=True)
        child.thread.start()

    def watch(self, join_timeout: float = 60.0) -> None:
        """Restart dead threads until `stop`; then wait (bounded) for them to finish. Raises FatalError."""
        try:
            while not self.stop.wait(self.check_every):
                for name, child in self.children.items():
                    self._check(name, child)
        finally:
            self.stop.set()
            deadline = time.monotonic() + join_timeout
            for child in self.children.values():
                child.thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def _check(self, name: str, child: _Supervised) -> None:
        if child.thread.is_alive():
            return
        if child.died_of is not None and is_fatal(child.died_of):
            raise FatalError(f"{name} died of {child.died_of!r}: no restart can fix that")
        now = time.monotonic()
        if child.restart_at is None:
            if now - child.started_at > STEADY_SECONDS:
                child.backoff.reset()  # it had been running fine: this is a new failure, not a crash loop
            pause = child.backoff.next()
            reason = repr(child.died_of) if child.died_of else "its loop returned"
            log.error("%s is not running (%s); restarting it in %.1fs", name, reason, pause)
            child.restart_at = now + pause
        elif now >= child.restart_at:
            self.restarts += 1
            log.warning("%s restarted", name)
            self._launch(name, child)
