"""libpq parameters for a PostgreSQL session of our own, beside Django's connections.

A few long-lived parts hold a session that Django must not recycle (CONN_MAX_AGE,
close_old_connections): the announcer of appends (eventlog/announcer.py), the
LISTEN session (consumers/wakeup.py) and the leases' advisory locks
(consumers/lease.py). Each opens it with psycopg from the default database's
settings, autocommit, and with keepalives so that a dead peer shows as an error
within seconds instead of hanging the thread.
"""

from typing import Any

from django.conf import settings

# Django's own OPTIONS keys that are not libpq connection parameters.
_DJANGO_ONLY_OPTIONS = {"isolation_level", "server_side_binding", "pool", "assume_role", "cursor_factory"}


def connection_kwargs(application_name: str) -> dict[str, Any]:
    """libpq parameters for a connection of our own to the default database."""
    db: dict[str, Any] = dict(settings.DATABASES["default"])
    options = {k: v for k, v in (db.get("OPTIONS") or {}).items() if k not in _DJANGO_ONLY_OPTIONS}
    kwargs: dict[str, Any] = {"dbname": db["NAME"], "user": db.get("USER") or None}
    kwargs |= {k: db[K] for k, K in (("password", "PASSWORD"), ("host", "HOST"), ("port", "PORT")) if db.get(K)}
    # A dead peer must show up as an error within seconds, not hang a check forever.
    return kwargs | options | {
        "application_name": application_name, "connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5,
        "keepalives_interval": 2, "keepalives_count": 3, "tcp_user_timeout": 10_000, "autocommit": True,
    }  # fmt: skip
