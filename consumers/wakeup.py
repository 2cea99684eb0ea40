"""Consumers woken by the log: one LISTEN session per process, the poll as a fallback.

On PostgreSQL every append is announced on `eventlog/channels.py: CHANNEL`
with its stream's category, and on the category's own channel (`channel_of`):
at its commit, or just after it by the writing process (eventlog/announcer.py
says which and why; a lost announcement costs a reader one fallback poll). A `Listener` holds one
dedicated psycopg session that LISTENs on a thread of its own and counts the
notifications, per category. The consumers of a process share one (not one per
consumer) on CHANNEL; a consumer's `Waiter` sleeps until one of its categories is
announced after its last read began, or the fallback poll elapses. So idle
consumers cost next to nothing and an append reaches them in milliseconds instead
of a poll interval. The read caches have a listener of their own on their
categories' channels only (`for_caches`): a web process is not woken by every cart
command, which cost it about 50 µs of CPU each (docs/round-trips.md).

Two things the notification cannot promise, and what covers them:
* Gap-safe reads (eventlog/stores/postgres.py: VISIBLE) hold back an event
  while an older writing transaction is still open, so a woken consumer may
  find nothing yet. After a wake-up the waiter re-reads at doubling intervals
  (10 ms up to the poll interval) for RECHECK_FOR seconds before it sleeps again.
* The session can die (terminated, database restarted). The thread reconnects
  with the same capped, jittered backoff as the workers; while it is away the
  waiters poll at the normal interval, and each reconnect wakes them all once
  (notifications sent meanwhile are lost).

The session lives while some transport uses it (`acquire`/`release`), so a
process that stops its consumers closes it. SQLite has no LISTEN: it polls.
"""

import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import psycopg
from django.conf import settings
from django.db import connection
from psycopg import sql

from eventlog.channels import CHANNEL, channel_of
from eventlog.sessions import connection_kwargs
from kernel.backoff import Backoff

log = logging.getLogger(__name__)

RECHECK_FIRST, RECHECK_FOR = 0.01, 3.0  # re-reads after a wake-up that found nothing
SLICE = 0.5  # the longest a waiter sleeps without looking at its stop flag


def listen_poll_seconds() -> float:
    """The fallback poll while the LISTEN session is up (a notification normally comes first)."""
    return float(settings.CONSUMER_LISTEN_POLL_SECONDS)


def enabled() -> bool:
    """LISTEN on PostgreSQL unless CONSUMER_LISTEN is False (e.g. behind a pooler in transaction
    mode, which does not keep a LISTEN session's notifications; or to measure the poll alone)."""
    return connection.vendor == "postgresql" and bool(settings.CONSUMER_LISTEN)


class Listener:
    """A LISTEN session on its own thread, on `channels`; `generation` counts notifications (and reconnects)."""

    def __init__(self, channels: Sequence[str] = (CHANNEL,), *, name: str = "cartlog-listen") -> None:
        self.channels = tuple(channels)
        self.name = name  # the session's application_name, before its pid
        self.pid = os.getpid()  # a thread does not survive a fork: a child starts its own listener
        self.generation = 0
        self.connected = False
        self.stopping = threading.Event()
        self.announced: dict[str, int] = {}  # category -> generation of its last notification
        self.reconnected = 0  # generation of the last (re)connect: announces every category
        self._changed = threading.Condition()
        self._backoff = Backoff()
        self._thread = threading.Thread(target=self._run, name="consumers-listen", daemon=True)
        self._thread.start()

    def news(self, seen: int, categories: Sequence[str]) -> bool:
        """Has any of `categories` (every one if empty) been announced after generation `seen`?"""
        if not categories or self.reconnected > seen:
            return self.generation > seen
        return any(self.announced.get(category, 0) > seen for category in categories)

    def wait(self, seen: int, categories: Sequence[str], timeout: float, stop: threading.Event) -> bool:
        """Until news of `categories` after `seen` (True), `timeout` elapses or `stop` is set (False)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self.news(seen, categories):
                left = deadline - time.monotonic()
                if left <= 0 or stop.is_set():
                    return False
                self._changed.wait(min(left, SLICE))
        return True

    def _bump(self, category: str | None) -> None:
        with self._changed:
            self.generation += 1
            if category is None:
                self.reconnected = self.generation
            else:
                self.announced[category] = self.generation
            self._changed.notify_all()

    def _run(self) -> None:
        while not self.stopping.is_set():
            try:
                self._listen()
            except Exception as error:  # the session died or never came: poll meanwhile, reconnect
                self.connected = False
                pause = self._backoff.next()
                said = " ".join(line.strip() for line in str(error).splitlines())  # psycopg's runs over lines
                log.warning("LISTEN %s: %s; readers poll; reconnecting in %.1fs", ", ".join(self.channels), said, pause)
                self.stopping.wait(pause)

    def _listen(self) -> None:
        kwargs = connection_kwargs(f"{self.name} pid={os.getpid()}")
        with psycopg.connect(**kwargs) as conn:
            for channel in self.channels:
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
            self._bump(None)  # anything appended while we were away was not announced: look now
            self.connected = True  # after the bump: a cache entry read from now on is newer than it
            self._backoff.reset()
            log.info("LISTEN %s: readers are woken by appends", ", ".join(self.channels))
            while not self.stopping.is_set():
                # Returns after a second at most, so that `stopping` is seen; raises if the session dies.
                for notification in conn.notifies(timeout=1.0):
                    self._bump(notification.payload)
        self.connected = False


_lock = threading.Lock()
_shared: Listener | None = None
_users = 0


def acquire() -> Listener | None:
    """The process's listener (started on first use); None where there is no LISTEN (SQLite, or off)."""
    global _shared, _users
    if not enabled():
        return None
    with _lock:
        if _shared is None or _shared.pid != os.getpid():
            _shared, _users = Listener(), 0
        _users += 1
        return _shared


def release(listener: Listener) -> None:
    """The last user gone, the session closes (within a second)."""
    global _shared, _users
    with _lock:
        if listener is not _shared:
            return
        _users -= 1
        if _users <= 0:
            listener.stopping.set()
            _shared, _users = None, 0


_for_caches: Listener | None = None


def for_caches(categories: Sequence[str] = ()) -> Listener | None:
    """The listener that feeds the process's read caches (kernel/fresh_cache.py), started on first
    use in each process and kept for its life; None where there is no LISTEN. A session of its own,
    on the channels of `categories` only (every category's when empty; the first call decides), so
    that appends of other categories, a cart command above all, do not wake it."""
    global _for_caches
    listener = _for_caches
    if listener is None or listener.pid != os.getpid() or listener.stopping.is_set():
        if not enabled():
            return None
        channels = [channel_of(category) for category in categories] or [CHANNEL]
        listener = _for_caches = Listener(channels, name="cartlog-listen-caches")
    return listener


def release_for_caches() -> None:
    """Stop the caches' listener (the caches then read every time until `for_caches` again)."""
    global _for_caches
    listener, _for_caches = _for_caches, None
    if listener is not None and listener.pid == os.getpid():
        listener.stopping.set()


@dataclass
class Waiter:
    """One consumer's idle wait: `mark()` before each read, `idle()` after a read that found nothing."""

    listener: Listener | None = None
    categories: Sequence[str] = ()
    seen: int = 0
    recheck: float = RECHECK_FIRST
    woken_at: float | None = None  # when the last notification woke us (re-reading until RECHECK_FOR after)
    acquired: bool = field(default=False, repr=False)

    def mark(self, categories: Sequence[str]) -> None:
        self.categories = tuple(categories)
        if self.listener is not None:
            self.seen = self.listener.generation

    def idle(self, stop: threading.Event, poll_seconds: float) -> None:
        if not self.acquired:  # lazily: a transport that is only drained never opens the session
            self.listener, self.acquired = acquire(), True
            self.seen = -1  # the read before this was not covered by the session: read once more now
        listener = self.listener
        if listener is None:
            stop.wait(poll_seconds)  # SQLite, or LISTEN off: poll
            return
        if listener.news(self.seen, self.categories):
            self._woken()  # announced since the read began: read again now
            return
        if self.woken_at is not None and time.monotonic() - self.woken_at < RECHECK_FOR:
            # Woken, found nothing: an older writer may still hold it back. Read again soon (or at news).
            if listener.wait(self.seen, self.categories, self.recheck, stop):
                self._woken()
            else:
                self.recheck = min(self.recheck * 2, poll_seconds)
            return
        # While the session is away, poll at the normal interval; its reconnect wakes us too.
        timeout = max(poll_seconds, listen_poll_seconds()) if listener.connected else poll_seconds
        if listener.wait(self.seen, self.categories, timeout, stop):
            self._woken()
        else:
            self.woken_at = None

    def _woken(self) -> None:
        self.woken_at, self.recheck = time.monotonic(), RECHECK_FIRST

    def close(self) -> None:
        if self.listener is not None:
            release(self.listener)
        self.listener, self.acquired = None, False
