"""`eventlog_append` takes `p_notify` (default true): false appends without notifying.

A transaction that notifies takes one database-wide lock as it commits and holds it
until its commit record is on disk, so that notifications queue in commit order. Every
append notified, so no two appends could flush their commits together: measured with
four writers, 2,460–2,553 commands/s with the notifications against 3,023–3,374 without
(docs/benchmarks.md). Now the store passes false for the categories that no read cache
watches, and the process announces those appends just after they commit, from a session
of its own (eventlog/announcer.py); an append of a watched category still notifies in its
own transaction (settings.EVENTLOG_ANNOUNCE_AT_COMMIT).

The body is 0005's, frozen here as created, with the two notifications under `p_notify`.
The old four-argument function is dropped first (a fifth argument with a default beside
it would make every four-argument call ambiguous); a four-argument call still works and
notifies. Backward restores 0005's function.
"""

from importlib import import_module

from django.db import migrations

ORDER_LOCK = 74260001  # session lock: taking a transaction id and positions, in one order
SLOW_LOCK = 74260002  # transaction lock: shared by fast appends, exclusive for slow ones
CHANNEL = "cartlog_events"

FORWARD = f"""
DROP FUNCTION IF EXISTS eventlog_append(text, integer, jsonb, timestamptz);
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
    IF p_notify THEN
        PERFORM pg_notify('{CHANNEL}', category);
        PERFORM pg_notify('{CHANNEL}.' || category, category);
    END IF;
END $$;
"""

BACKWARD = "DROP FUNCTION IF EXISTS eventlog_append(text, integer, jsonb, timestamptz, boolean);"


def _run(schema_editor, sql: str) -> None:  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:  # raw: the body holds literal % signs
            cursor.execute(sql)


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    _run(schema_editor, FORWARD)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    _run(schema_editor, BACKWARD)
    _run(schema_editor, import_module("eventlog.migrations.0005_append_notifies_its_category").FORWARD)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0005_append_notifies_its_category")]
    operations = [migrations.RunPython(forward, backward)]
