"""A log the app cannot destroy: the runtime role reads and appends, and nothing more.

On a throwaway cluster migrated as compose does it (the owner migrates, then
`grant_runtime_role`), the runtime role of the web tier and the consumers is
refused every statement that would change or remove the log, while it can
still append through eventlog_append. flush and sqlflush refuse outside a test
database, even for the owner. And the suite itself runs as the runtime role
when scripts/test.sh says so.
"""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from psycopg.types.json import Jsonb

from cartlog import db_roles
from tests import services
from tests.pg_cluster import OWNER, RUNTIME, Cluster

ROOT = Path(__file__).resolve().parents[2]
DESTROYERS = [
    "TRUNCATE eventlog_event",
    "DELETE FROM eventlog_event",
    "UPDATE eventlog_event SET type = 'Forged'",
    "ALTER TABLE eventlog_event DISABLE TRIGGER eventlog_event_append_only",
    "ALTER TABLE eventlog_event DISABLE TRIGGER ALL",
    "DROP TRIGGER eventlog_event_append_only ON eventlog_event",
    "DROP TABLE eventlog_event",
]


def append_one(url: str) -> None:
    event = {
        "event_id": str(uuid.uuid4()), "type": "CartCreated", "schema_version": 1, "data": {},
        "metadata": {}, "occurred_at": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "SELECT * FROM eventlog_append(%s, 0, %s, now())",
            [f"cart-{uuid.uuid4()}", Jsonb([event])],
        )


def events(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM eventlog_event").fetchone()
        assert row is not None
        return int(row[0])


@pytest.mark.postgres
def test_the_runtime_role_appends_but_cannot_truncate_delete_update_disable_or_drop_the_log(
    pg_cluster: Cluster,
    pg_cluster_database: str,
) -> None:
    append_one(pg_cluster_database)
    assert events(pg_cluster_database) == 1
    for statement in DESTROYERS:
        with psycopg.connect(pg_cluster_database) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)
    assert events(pg_cluster_database) == 1
    owner = pg_cluster.url("cartlog", OWNER)
    # The trigger still stands between the owner and a stray UPDATE or DELETE.
    for statement in ("DELETE FROM eventlog_event", "UPDATE eventlog_event SET type = 'Forged'"):
        with psycopg.connect(owner) as conn, pytest.raises(psycopg.errors.RestrictViolation, match="append-only"):
            conn.execute(statement)
    assert events(owner) == 1


@pytest.mark.postgres
def test_the_runtime_role_owns_only_the_projection_tables(pg_cluster: Cluster, pg_cluster_database: str) -> None:
    owned = pg_cluster.sql(f"SELECT tablename FROM pg_tables WHERE tableowner = '{RUNTIME}'", "cartlog").split()
    assert set(owned) == db_roles.rebuildable_tables()
    assert pg_cluster.sql("SELECT tableowner FROM pg_tables WHERE tablename = 'eventlog_event'", "cartlog") == OWNER


@pytest.mark.postgres
def test_flush_and_sqlflush_refuse_outside_tests_even_for_the_owner(
    pg_cluster: Cluster, pg_cluster_database: str
) -> None:
    append_one(pg_cluster_database)
    env = {**os.environ, "DATABASE_URL": pg_cluster.url("cartlog", OWNER)}
    for command in (["flush", "--no-input"], ["sqlflush"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert result.returncode != 0
        assert "refused" in result.stderr and "eventlog_event" in result.stderr
        assert "TRUNCATE" not in result.stdout
    assert events(pg_cluster_database) == 1


def test_only_the_database_the_test_runner_made_counts_as_a_test_database() -> None:
    assert db_roles.is_test_database({"NAME": "test_cartlog_1", "TEST": {"NAME": "test_cartlog_1"}})
    assert not db_roles.is_test_database({"NAME": "cartlog", "TEST": {"NAME": "test_cartlog_1"}})
    assert not db_roles.is_test_database({"NAME": "cartlog", "TEST": {}})


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_suite_runs_as_the_runtime_role_when_scripts_test_sh_says_so() -> None:
    services.require(bool(os.environ.get("MIGRATE_DATABASE_URL")), "MIGRATE_DATABASE_URL (scripts/test.sh sets it)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, (SELECT tableowner FROM pg_tables WHERE tablename = 'eventlog_event')")
        user, owner = cursor.fetchone()
    assert user != owner
    from django.db import DatabaseError, transaction

    with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("TRUNCATE eventlog_event")
