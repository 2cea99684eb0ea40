"""At most one runner per consumer on the table transport.

On PostgreSQL, a session advisory lock keyed by the consumer's name: it is
released when the holding process dies, however it dies. SQLite has no such
lock, so a lease row with an expiry stands in, renewed each batch; a killed
holder's lease lapses after `ttl` seconds.
"""

import hashlib
import os
import socket
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from .models import Lease as LeaseRow


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


class Lease:
    def __init__(self, name: str, ttl: float = 15.0) -> None:
        self.name = name
        self.ttl = ttl
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{id(self)}"
        self.held = False

    def acquire(self) -> bool:
        """Take or renew the lease; False while someone else holds it."""
        if connection.vendor == "postgresql":
            if not self.held:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_try_advisory_lock(%s)", [_lock_key(self.name)])
                    self.held = bool(cursor.fetchone()[0])
            return self.held
        return self._acquire_row()

    def _acquire_row(self) -> bool:
        now = timezone.now()
        with transaction.atomic():
            row = LeaseRow.objects.filter(name=self.name).first()
            if row and row.holder != self.holder and row.expires_at > now:
                self.held = False
                return False
            LeaseRow.objects.update_or_create(
                name=self.name, defaults={"holder": self.holder, "expires_at": now + timedelta(seconds=self.ttl)}
            )
        self.held = True
        return True

    def release(self) -> None:
        if not self.held:
            return
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_lock_key(self.name)])
        else:
            LeaseRow.objects.filter(name=self.name, holder=self.holder).delete()
        self.held = False
