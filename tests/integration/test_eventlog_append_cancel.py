"""An append canceled while it holds the order lock does not hold up every other append.

`eventlog_append` holds ORDER_LOCK, a session advisory lock, around its INSERT (ADR 0002).
A session lock outlives a failed statement, so the function must release it whatever
ended the statement, a cancel included (`statement_timeout`, `pg_cancel_backend`, a client
giving up). The cancel that matters comes while the INSERT waits, under the lock, for
another writer's uncommitted row of the same stream: before migration 0007 the session
kept the lock, and every other append of the database waited until that session closed.
"""

from datetime import UTC, datetime

import psycopg
import pytest
from django.db import OperationalError, connection

from eventlog import store
from eventlog.records import NewEvent
from eventlog.stores.postgres import ORDER_LOCK

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NOW = datetime(2026, 1, 1, tzinfo=UTC)
APPEND = "SELECT out_version FROM eventlog_append(%s, 0, %s::jsonb, now(), false)"


def event_json(n: int) -> str:
    return (
        f'[{{"event_id": "00000000-0000-0000-0000-00000000000{n}", "type": "Tested", "schema_version": 1,'
        ' "data": {}, "metadata": {}, "occurred_at": "2026-01-01T00:00:00Z"}]'
    )


def order_lock_holders(session: psycopg.Connection) -> list[int]:
    rows = session.execute(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = %s AND granted",
        [ORDER_LOCK],
    ).fetchall()
    return [pid for (pid,) in rows]


def test_an_append_canceled_while_it_waits_under_the_order_lock_releases_it() -> None:
    params = connection.get_connection_params()
    with psycopg.connect(**params) as holder, psycopg.connect(**params, autocommit=True) as other:
        # Version 1 of the stream, written and not committed: the next INSERT of the same
        # version waits for this transaction, under the order lock.
        assert holder.execute(APPEND, ["cart-held", event_json(1)]).fetchall() == [(1,)]
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            canceled_pid = cursor.fetchone()[0]
            cursor.execute("SET statement_timeout = '300ms'")
        with pytest.raises(OperationalError, match="statement timeout"):
            store.append("cart-held", 0, [NewEvent(type="Tested", data={}, occurred_at=NOW)])
        with connection.cursor() as cursor:
            cursor.execute("RESET statement_timeout")

        assert canceled_pid not in order_lock_holders(other)
        holder.rollback()  # nothing else holds the stream now: only a kept lock could block
        # Bounded: with the lock kept, this append would wait as long as the canceled session lives.
        other.execute("SET lock_timeout = '5s'")
        assert other.execute(APPEND, ["cart-other", event_json(2)]).fetchall() == [(1,)]

    # The canceled session is still usable, and appends as before.
    recorded = store.append("cart-held", 0, [NewEvent(type="Tested", data={}, occurred_at=NOW)])
    assert [event.version for event in recorded] == [1]
