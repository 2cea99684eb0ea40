"""At most one runner per consumer (and one relay), and a runner that knows when it lost that.

On PostgreSQL, a session advisory lock keyed by the lease's name, held on a
connection of its own: Django recycles its connections (CONN_MAX_AGE,
close_old_connections) and a recycled session silently drops its advisory
locks, so the lock must never live on one of them. The lock dies with its
session, however the process dies. SQLite has no such lock, so a lease row
with an expiry stands in, renewed each batch; a killed holder's row lapses
after `ttl` seconds.

A runner calls `acquire()` before each batch (it takes the lease, or checks on
the database that it still holds it) and `verify()` inside the batch's
transaction just before moving its checkpoint. A runner that lost the lease
stops until `acquire()` succeeds again. The checkpoint's compare-and-set
(consumers/checkpoints.py) is the last guard: of two runners that both
believed they held it, only one can move it.
"""

import contextlib
import hashlib
import logging
import os
import socket
from datetime import timedelta
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from eventlog.sessions import connection_kwargs

from .models import LeaseRow

log = logging.getLogger(__name__)

# Is the advisory lock `key` (a bigint: classid is its high half, objid its low half) held by this session
# (_HELD_SQL), or by any session (_HELD_BY_ANYONE_SQL)?
_ADVISORY_LOCK_HELD = """
SELECT EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = %s{mine}
)
"""
_HELD_SQL = _ADVISORY_LOCK_HELD.format(mine=" AND pid = pg_backend_pid()")
# An advisory lock belongs to its database, and pg_locks lists every database's: another shop on the server
# (staging beside production, another test database) holding a lock of the same name does not hold this one.
_HELD_BY_ANYONE_SQL = _ADVISORY_LOCK_HELD.format(
    mine=" AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


class LeaseLostError(Exception):
    """The lease is no longer ours: the batch in hand must not move the checkpoint."""


def lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def held_by_anyone(name: str) -> bool:
    """Whether some process holds lease `name` now, asked without taking it (taking it even for a moment
    would make a holder starting then find it busy): its advisory lock in any session, or its row unexpired."""
    if not _is_postgresql():
        return LeaseRow.objects.filter(name=name, expires_at__gt=timezone.now()).exists()
    with connection.cursor() as cursor:
        cursor.execute(_HELD_BY_ANYONE_SQL, [lock_key(name)])
        return bool(cursor.fetchone()[0])


def _is_postgresql() -> bool:
    return "postgresql" in settings.DATABASES["default"]["ENGINE"]


class Lease:
    def __init__(self, name: str, ttl: float | None = None, *, waits: bool = True) -> None:
        self.name = name
        self.ttl = settings.CONSUMER_LEASE_SECONDS if ttl is None else ttl
        # False for a caller that gives up when the lease is held (a rebuild, an analytics run): its own
        # error says so, and "stands by until it is free" would not be true.
        self.waits = waits
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{id(self)}"
        self.held = False
        self.standing_by = False  # told the log that another process holds it
        self._conn: psycopg.Connection[Any] | None = None

    def acquire(self) -> bool:
        """Take the lease, or confirm on the database that it is still ours; False while another holds it.

        Raises when the database cannot be reached (the caller backs off and retries).
        """
        was = self.held
        held = self._acquire_lock() if _is_postgresql() else self._acquire_row()
        lost = was and not held
        if held and not was:
            log.info("lease %s acquired by pid %d", self.name, os.getpid())
        elif lost and not _is_postgresql():  # PostgreSQL's loss is told by _acquire_lock, with its cause
            log.info("lease %s LOST by pid %d", self.name, os.getpid())
        elif not held and not lost and not self.standing_by and self.waits:
            # Said once: a second `run_relay` (or a hot spare) printed "started" and then nothing, idle.
            log.info("lease %s is held by another process; pid %d stands by until it is free", self.name, os.getpid())
        # Just lost (its session ended: a database restart, a cut connection): nobody is known to hold it,
        # so the next refusal, if any, is the one that says another process does.
        self.standing_by = not held and not lost
        self.held = held
        return held

    def verify(self) -> None:
        """Raise LeaseLostError unless the database says the lease is still ours (call before moving a checkpoint)."""
        still = self.held and (self._lock_held() if _is_postgresql() else self._row_held())
        if not still:
            if self.held:
                log.warning("lease %s LOST by pid %d before its checkpoint moved", self.name, os.getpid())
            self.held = False
            self._drop_connection()
            raise LeaseLostError(f"lease {self.name!r} is no longer held by this process")

    def release(self) -> None:
        """Give the lease up (best effort: a dead session or a lapsed row frees it anyway)."""
        try:
            if _is_postgresql():
                if self.held and self._conn is not None and not self._conn.closed:
                    # Freed now, not when the server has ended the closed session: a lease taken again
                    # right after (a --verify, then the swap) was refused now and then.
                    with contextlib.suppress(psycopg.Error):
                        self._conn.execute("SELECT pg_advisory_unlock(%s)", [lock_key(self.name)])
                self._drop_connection()  # closing the session frees its advisory locks anyway
            elif self.held:
                LeaseRow.objects.filter(name=self.name, holder=self.holder).delete()
        except Exception:
            log.warning("lease %s: release failed; it lapses by itself", self.name, exc_info=True)
        self.held = False

    # --- PostgreSQL: an advisory lock on a dedicated session -----------------------------------

    def _acquire_lock(self) -> bool:
        if self.held:
            if self._lock_held():
                return True
            # Stand by one turn, like any other runner: a hot spare may take it over meanwhile.
            log.warning("lease %s LOST by pid %d: its session ended; standing by", self.name, os.getpid())
            self.held = False
            return False
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._drop_connection()
            self._conn = psycopg.connect(**connection_kwargs(f"cartlog-lease {self.name} pid={os.getpid()}"))
        try:
            row = self._conn.execute("SELECT pg_try_advisory_lock(%s)", [lock_key(self.name)]).fetchone()
        except psycopg.Error:
            self._drop_connection()  # a stand-by's session died: reconnect on the next attempt
            raise
        return bool(row and row[0])

    def _lock_held(self) -> bool:
        if self._conn is None or self._conn.closed:
            return False
        try:
            row = self._conn.execute(_HELD_SQL, [lock_key(self.name)]).fetchone()
        except psycopg.Error:
            self._drop_connection()  # the session is gone (terminated, database restarted): so is the lock
            return False
        return bool(row and row[0])

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                conn.close()

    # --- SQLite: a lease row with an expiry ----------------------------------------------------

    def _acquire_row(self) -> bool:
        now = timezone.now()
        with transaction.atomic():
            row = LeaseRow.objects.filter(name=self.name).first()
            if row and row.holder != self.holder and row.expires_at > now:
                return False
            LeaseRow.objects.update_or_create(
                name=self.name, defaults={"holder": self.holder, "expires_at": now + timedelta(seconds=self.ttl)}
            )
        return True

    def _row_held(self) -> bool:
        return LeaseRow.objects.filter(name=self.name, holder=self.holder, expires_at__gt=timezone.now()).exists()
