"""`eventlog_append` releases its session lock (ORDER_LOCK) when its statement is canceled.

The fast path holds ORDER_LOCK, a *session* advisory lock, around its INSERT (ADR 0002),
and an exception block released it when the INSERT failed. But PL/pgSQL's `WHEN OTHERS`
does not catch `query_canceled`: an append canceled while it held the lock (by
`statement_timeout`, `pg_cancel_backend`, or a client giving up, typically while its
INSERT waits for another writer's row of the same stream) kept the lock for as long as
its session lived, and every other append of the database waited behind it.
`tests/integration/test_eventlog_append_cancel.py` shows it.

Now the lock is taken inside the block, released at its end, and the handler catches
`query_canceled` too and releases the lock if this session still holds it (pg_locks: a
cancel may land before the lock is granted or after it was released). The handler's
check runs only on the error path; an append that succeeds costs what it did.

The body is 0006's otherwise, written out whole and frozen here as created (a migration
shows the SQL it ran). Backward restores 0006's function.
"""

from importlib import import_module

from django.db import migrations

ORDER_LOCK = 74260001  # session lock: taking a transaction id and positions, in one order
SLOW_LOCK = 74260002  # transaction lock: shared by fast appends, exclusive for slow ones
CHANNEL = "cartlog_events"

FORWARD = f"""
CREATE OR REPLACE FUNCTION eventlog_append(
    p_stream_id text, p_expected integer, p_events jsonb, p_recorded_at timestamptz, p_notify boolean DEFAULT true
)
RETURNS TABLE(out_position bigint, out_version integer)
LANGUAGE plpgsql AS $$
DECLARE
    fast boolean := pg_current_xact_id_if_assigned() IS NULL;
    current_version integer;
    category text := split_part(p_stream_id, '-', 1);
BEGIN
    SELECT COALESCE(MAX(version), 0) INTO current_version FROM eventlog_event WHERE stream_id = p_stream_id;
    IF current_version <> p_expected THEN
        RAISE EXCEPTION 'stream %: expected version %, found %', p_stream_id, p_expected, current_version
            USING ERRCODE = 'unique_violation';
    END IF;
    IF fast THEN
        PERFORM pg_advisory_xact_lock_shared({SLOW_LOCK});
    ELSE
        PERFORM pg_advisory_xact_lock({SLOW_LOCK});
    END IF;
    BEGIN
        IF fast THEN PERFORM pg_advisory_lock({ORDER_LOCK}); END IF;
        RETURN QUERY
        INSERT INTO eventlog_event AS ev
            (event_id, stream_id, version, type, schema_version, data, metadata, occurred_at, recorded_at)
        SELECT (e.doc->>'event_id')::uuid, p_stream_id, p_expected + e.n::integer, e.doc->>'type',
               (e.doc->>'schema_version')::smallint, e.doc->'data', e.doc->'metadata',
               (e.doc->>'occurred_at')::timestamptz, p_recorded_at
        FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(doc, n)
        ORDER BY e.n
        RETURNING ev.position, ev.version;
        IF fast THEN PERFORM pg_advisory_unlock({ORDER_LOCK}); END IF;
    EXCEPTION WHEN OTHERS OR query_canceled THEN
        -- A session lock outlives the failed statement: release it here, whatever failed.
        IF fast AND EXISTS (
            SELECT FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
               AND classid = 0 AND objid = {ORDER_LOCK} AND objsubid = 1 AND granted
        ) THEN
            PERFORM pg_advisory_unlock({ORDER_LOCK});
        END IF;
        RAISE;
    END;
    IF p_notify THEN
        PERFORM pg_notify('{CHANNEL}', category);
        PERFORM pg_notify('{CHANNEL}.' || category, category);
    END IF;
END $$;
"""


# The function as 0006 left it (restored backward), and its way of running raw SQL on PostgreSQL only.
PREVIOUS = import_module("eventlog.migrations.0006_append_may_leave_notifying_to_its_process")


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    PREVIOUS._run(schema_editor, FORWARD)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    PREVIOUS._run(schema_editor, PREVIOUS.FORWARD)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0006_append_may_leave_notifying_to_its_process")]
    operations = [migrations.RunPython(forward, backward)]
