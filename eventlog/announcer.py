"""Appends announced just after they commit, from a PostgreSQL session of the process's own.

Readers of the log (consumers, the relay) sleep until an append is announced on
`eventlog/channels.py: CHANNEL` and its category's channel. Why the append does
not simply notify in its own transaction: a transaction that notifies takes one
database-wide lock as it commits and keeps it until its commit record is on disk
(PostgreSQL keeps its notification queue in commit order that way). With every append
notifying, no two appends could share a WAL flush, and four writers ran a quarter
slower than without (docs/round-trips.md, "Who announces an append").

So `PostgresStore.append` asks `eventlog_append` not to notify (migration 0006) and,
when the append commits (`transaction.on_commit`: at once outside a transaction, never
for one rolled back), hands its category to this process's `Announcer`. Its thread
sends what is pending in one statement, the same two `pg_notify`s the append would
have sent, from an autocommit session whose commits are not waited for on disk
(`_connect`), so it holds that lock only for an instant. It then rests GAP seconds: under
load one announcement carries the appends of those milliseconds instead of each
append waking every listener; after a quiet spell an append is announced at once.

What it does not promise, and why that is enough: an announcement is a wake-up, not
the news; readers read the log. If the process dies between a commit and its
announcement, or the session is down, a reader finds the events at its fallback poll
(CONSUMER_LISTEN_POLL_SECONDS) or at the next announcement. A read cache has no poll
(kernel/fresh_cache.py), so the categories the caches watch still notify in the
append's own transaction (settings.EVENTLOG_ANNOUNCE_AT_COMMIT).
"""

import atexit
import logging
import os
import threading
from functools import partial

import psycopg
from django.db.backends.base.base import BaseDatabaseWrapper

from kernel.backoff import Backoff

from .channels import notifications
from .sessions import connection_kwargs
from .stores.wire import check_result

log = logging.getLogger(__name__)

GAP = 0.01  # seconds a process rests between two announcements: at most 100 a second, each carrying many appends
CLOSE_WAIT = 2.0  # at exit, how long the last announcements may take


class Announcer:
    """One thread and one session: `appended(category)` from any thread; it announces, coalescing."""

    def __init__(self, *, gap: float = GAP, name: str = "cartlog-announce") -> None:
        self.gap = gap
        self.name = name  # the session's application_name, before its pid
        self.pid = os.getpid()  # a thread does not survive a fork: a child starts its own
        self.sent = 0  # announcements sent (each one statement, any number of categories)
        self._pending: set[str] = set()
        self._statements: dict[tuple[str, ...], bytes] = {}
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._backoff = Backoff()
        self._thread = threading.Thread(target=self._run, name="eventlog-announce", daemon=True)
        self._thread.start()

    def appended(self, category: str) -> None:
        """An append of `category` has committed: announce it soon (now, unless one was just sent)."""
        if category in self._pending:
            # Already waiting to go, or being taken for a statement that is yet to be sent: either
            # way it is announced after this call, so after this append's commit. No lock needed.
            return
        with self._changed:
            if not self._pending:
                self._changed.notify()
            self._pending.add(category)

    def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Send what is pending, then stop (what the database does not take in `timeout` is dropped)."""
        if self.pid != os.getpid():
            return  # the parent's, copied by a fork: its thread is not in this process
        self._stopping.set()
        with self._changed:
            self._changed.notify()
        self._thread.join(timeout)

    def _run(self) -> None:
        session: psycopg.Connection[tuple[object, ...]] | None = None
        while True:
            with self._changed:
                while not self._pending and not self._stopping.is_set():
                    self._changed.wait()
                if not self._pending:
                    break
                categories, self._pending = sorted(self._pending), set()
            try:
                session = session or _connect(self.name)
                self._send(session, tuple(categories))
            except Exception as error:  # the session died or never came: keep them, reconnect after a pause
                _close(session)
                session = None
                with self._changed:
                    self._pending.update(categories)
                pause = self._backoff.next()
                log.warning("announcing appends of %s: %s; retrying in %.1fs", ", ".join(categories), error, pause)
                if self._stopping.wait(pause):
                    break
                continue
            if self._backoff.failures:
                log.info("announcing appends again")
                self._backoff.reset()
            self.sent += 1
            self._stopping.wait(self.gap)
        _close(session)

    def _send(self, session: psycopg.Connection[tuple[object, ...]], categories: tuple[str, ...]) -> None:
        """The statement straight over libpq, kept per set of categories: most of the time the
        same one, and a web worker's threads wait for the GIL while this one holds it."""
        statement = self._statements.get(categories)
        if statement is None:
            statement = self._statements[categories] = notifications(categories).encode()
        check_result(session, session.pgconn.exec_(statement))


def _connect(name: str) -> psycopg.Connection[tuple[object, ...]]:
    session = psycopg.connect(**connection_kwargs(f"{name} pid={os.getpid()}"))
    # A notifying transaction takes a transaction id, so its commit writes a record, and the
    # notification lock is held until that record is on disk. An announcement lost to a crash
    # loses nothing (readers poll, and the notifications are gone with the server anyway), so
    # its commit is not waited for: the lock is held for an instant, not for a disk flush.
    session.execute("SET synchronous_commit = off")
    return session


def _close(session: psycopg.Connection[tuple[object, ...]] | None) -> None:
    if session is not None:
        try:
            session.close()
        except Exception:  # closing a dead session: nothing left to do
            log.debug("closing the announcer's session", exc_info=True)


_lock = threading.Lock()
_shared: Announcer | None = None


def announcer() -> Announcer:
    """The process's announcer, started on first use (and again in a forked child)."""
    global _shared
    shared = _shared
    if shared is None or shared.pid != os.getpid():
        with _lock:
            if _shared is None or _shared.pid != os.getpid():
                _shared = Announcer()
                atexit.register(_shared.close)
            shared = _shared
    return shared


def stop() -> None:
    """Announce what is pending and close the process's session (a test database must be dropped)."""
    global _shared
    with _lock:
        shared, _shared = _shared, None
    if shared is not None:
        shared.close()


def announce_after_commit(category: str, connection: BaseDatabaseWrapper) -> None:
    """Announce an append of `category` once the transaction on `connection` commits (now, outside one)."""
    connection.on_commit(partial(announcer().appended, category))
