"""A transaction elsewhere on the server holds the log's readers back, and cartlog says so
(eventlog/horizon.py, /health/ready's `log`, /metrics' cartlog_log_held_back_seconds).

A gap-safe read waits for the oldest writing transaction of the whole PostgreSQL server
(ADR 0002). Before this, an operator whose views had stopped saw `ok` everywhere: every
consumer beat, none failed, and only lag grew.
"""

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from eventlog import horizon, store
from eventlog.sessions import connection_kwargs
from tests.integration.test_ops_endpoints import sample
from tests.runtime_role import owner
from tests.store_contract import WAIT, new, stream

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
TAIL = "; consumers, the relay and sign-ups wait until it ends"


def session(database: str, role: dict[str, Any] | None = None) -> psycopg.Connection[Any]:
    """Another session on the test's server, as `role` (default: the test's own) in `database`, in a
    transaction (not autocommit: it is to hold one open)."""
    login = {"user": role["USER"], "password": role["PASSWORD"] or None} if role else {}
    return psycopg.connect(**connection_kwargs("cartlog-test-held") | {"dbname": database, "autocommit": False} | login)


@pytest.fixture
def writing(request: pytest.FixtureRequest) -> Iterator[psycopg.Connection[Any]]:
    """A session left idle in a transaction that took an id (as one that wrote a row does)."""
    database, role = request.param
    other = session(database, role() if role else None)
    other.execute("SELECT pg_current_xact_id()")
    try:
        yield other
    finally:
        other.close()


def appended_while_held() -> None:
    store.append(stream(), 0, [new()])  # committed, but newer than the other transaction


def released(other: psycopg.Connection[Any]) -> None:
    other.rollback()
    deadline = time.monotonic() + WAIT  # the suite's own sessions may hold it a moment more
    while horizon.held_back() is not None:
        assert time.monotonic() < deadline, f"still held back: {horizon.held_back()}"
        time.sleep(0.05)


@pytest.mark.parametrize("writing", [("postgres", None)], indirect=True)
def test_a_transaction_in_another_database_holds_the_log_back_and_is_named(
    writing: psycopg.Connection[Any],
) -> None:
    appended_while_held()
    time.sleep(1.1)

    held = horizon.held_back()

    assert held is not None
    assert held.seconds >= 1.0, "the newest event was recorded over a second ago"
    assert held.pid == writing.info.backend_pid
    assert held.database == "postgres"  # not the shop's database: transaction ids are the server's
    assert held.state == "idle in transaction"  # the same role may see its own sessions' state
    assert held.open_seconds is not None and held.open_seconds >= 1.0

    released(writing)


@pytest.mark.parametrize("writing", [("postgres", owner)], indirect=True)
def test_another_roles_session_is_named_by_pid_and_database_only(writing: psycopg.Connection[Any]) -> None:
    if owner() is None:
        pytest.skip("the suite runs as one role (scripts/test.sh runs it as two)")
    appended_while_held()

    held = horizon.held_back()

    assert held is not None and held.pid == writing.info.backend_pid and held.database == "postgres"
    # PostgreSQL shows another role's state and start to superusers and pg_read_all_stats only.
    assert held.state is None and held.open_seconds is None
    assert horizon.describe(held, whole=True) == (
        f"the log's newest event has waited {held.seconds:.0f}s for an older transaction of the server"
        f" to end: pid {held.pid}, database postgres{TAIL}"
    )
    released(writing)


@pytest.mark.parametrize("writing", [("postgres", None)], indirect=True)
def test_health_and_metrics_say_the_readers_are_held_back_and_clear_it_when_the_transaction_ends(
    writing: psycopg.Connection[Any], settings: Any
) -> None:
    settings.LOG_HELD_BACK_AFTER_SECONDS = 1
    anonymous, staff = Client(), Client()
    staff.force_login(get_user_model().objects.create_user("operator", is_staff=True))
    appended_while_held()
    assert anonymous.get("/health/ready").json()["checks"]["log"] == "ok", "under a second: not yet"
    time.sleep(1.2)

    response = anonymous.get("/health/ready")
    said = response.json()["checks"]["log"]
    whole = staff.get("/health/ready").json()["checks"]["log"]

    assert response.status_code == 200, "the shop still takes orders: the views only lag"
    assert response.json()["status"] == "degraded"
    assert said.startswith("readers held back: the log's newest event has waited ")
    assert " for an older transaction of the server to end (open " in said and said.endswith(TAIL)
    assert "pid" not in said and "postgres" not in said, "another application's session: staff only"
    assert f"s): pid {writing.info.backend_pid}, database postgres, idle in transaction{TAIL}" in whole
    assert sample(anonymous, "cartlog_log_held_back_seconds") >= 1.0

    released(writing)

    assert anonymous.get("/health/ready").json()["checks"]["log"] == "ok"
    assert sample(anonymous, "cartlog_log_held_back_seconds") == 0
