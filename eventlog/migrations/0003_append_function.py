"""`eventlog_append`: PostgreSQL's append, in one round trip, gap-safe for readers.

Readers return only rows whose `transaction_id` is older than the oldest
transaction still running (`pg_snapshot_xmin`). That is gap-free only if
positions are handed out in transaction-id order, so the function makes sure:

* Fast path — the transaction has no id yet (the append is its first write, as
  in every command handler). A short session lock is held around the INSERT
  alone, which is where the transaction gets its id and its positions, so ids
  and positions are handed out in the same order. The commit happens after the
  lock is released: concurrent commands still commit (and fsync) together.
* Slow path — the transaction already has an id (it wrote before appending, or
  appends twice). Its id is older than positions it takes now, so it holds an
  exclusive transaction lock until commit; fast appends hold the same lock
  shared until their commit. So no position is handed out around it while it
  is open, and it waits for appends already in flight to commit.

See docs/adr/0002-gap-safe-readers.md for the proof sketch and the tests.
"""

from django.db import migrations

ORDER_LOCK = 74260001  # session lock: taking a transaction id and positions, in one order
SLOW_LOCK = 74260002  # transaction lock: shared by fast appends, exclusive for slow ones

FORWARD = f"""
CREATE FUNCTION eventlog_append(p_stream_id text, p_expected integer, p_events jsonb, p_recorded_at timestamptz)
RETURNS TABLE(out_position bigint, out_version integer)
LANGUAGE plpgsql AS $$
DECLARE
    fast boolean := pg_current_xact_id_if_assigned() IS NULL;
    current_version integer;
BEGIN
    SELECT COALESCE(MAX(version), 0) INTO current_version FROM eventlog_event WHERE stream_id = p_stream_id;
    IF current_version <> p_expected THEN
        RAISE EXCEPTION 'stream %: expected version %, found %', p_stream_id, p_expected, current_version
            USING ERRCODE = 'unique_violation';
    END IF;
    IF fast THEN
        PERFORM pg_advisory_xact_lock_shared({SLOW_LOCK});
        PERFORM pg_advisory_lock({ORDER_LOCK});
    ELSE
        PERFORM pg_advisory_xact_lock({SLOW_LOCK});
    END IF;
    BEGIN
        RETURN QUERY
        INSERT INTO eventlog_event AS ev
            (event_id, stream_id, version, type, schema_version, data, metadata, occurred_at, recorded_at)
        SELECT (e.doc->>'event_id')::uuid, p_stream_id, p_expected + e.n::integer, e.doc->>'type',
               (e.doc->>'schema_version')::smallint, e.doc->'data', e.doc->'metadata',
               (e.doc->>'occurred_at')::timestamptz, p_recorded_at
        FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(doc, n)
        ORDER BY e.n
        RETURNING ev.position, ev.version;
    EXCEPTION WHEN OTHERS THEN
        IF fast THEN PERFORM pg_advisory_unlock({ORDER_LOCK}); END IF;
        RAISE;
    END;
    IF fast THEN PERFORM pg_advisory_unlock({ORDER_LOCK}); END IF;
END $$;
"""
BACKWARD = "DROP FUNCTION eventlog_append(text, integer, jsonb, timestamptz)"


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:  # raw: the body holds literal % signs
            cursor.execute(FORWARD)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0002_append_only")]
    operations = [migrations.RunPython(forward, backward)]
