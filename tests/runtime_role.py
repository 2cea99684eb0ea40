"""The suite on PostgreSQL as the runtime role, as production runs (scripts/test.sh, docs/reliability.md).

With MIGRATE_DATABASE_URL set to the owner role, pytest-django creates and
migrates the test database as the owner, `grant_runtime_role` gives the runtime
role (the user of DATABASE_URL) its rights, and every test then connects as
the runtime role. Emptying the database between transactional tests is the one
thing the runtime role may not do (TRUNCATE of the log), so the harness, and
only it, runs Django's flush over a connection of the owner.
"""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import dj_database_url
from django.db import connection


def owner() -> dict[str, Any] | None:
    """The owner's settings from MIGRATE_DATABASE_URL; None when the suite runs as one role."""
    url = os.environ.get("MIGRATE_DATABASE_URL")
    if not url or connection.vendor != "postgresql":
        return None
    return dict(dj_database_url.parse(url))


def runtime() -> dict[str, Any]:
    """The runtime role's settings, from DATABASE_URL as the settings read it."""
    from django.conf import settings

    return dict(dj_database_url.parse(settings.DATABASE_URL))


@contextmanager
def connected_as(user: str, password: str | None) -> Iterator[None]:
    """Every new connection of the default alias (any thread) logs in as `user` meanwhile."""
    settings_dict = connection.settings_dict
    saved = settings_dict["USER"], settings_dict["PASSWORD"]
    connection.close()
    settings_dict["USER"], settings_dict["PASSWORD"] = user, password or ""
    try:
        yield
    finally:
        connection.close()
        settings_dict["USER"], settings_dict["PASSWORD"] = saved


def flush_as_owner_on_postgresql() -> None:
    """Django's flush is one TRUNCATE of every table: run it over a connection of the owner."""
    import psycopg
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):  # type: ignore[no-untyped-def]
        role = owner()
        if role is None:
            return original(self, sql_list)
        db = self.connection.settings_dict
        params = {"dbname": db["NAME"], "host": db["HOST"] or None, "port": db["PORT"] or None}
        login = {"user": role["USER"], "password": role["PASSWORD"] or None}
        with psycopg.connect(**params, **login, autocommit=True) as conn, conn.transaction():
            for sql in sql_list:
                conn.execute(sql)
        return None

    DatabaseOperations.execute_sql_flush = execute_sql_flush  # type: ignore[method-assign]
