"""`eventlog_append` also notifies the channel of the stream's category: `cartlog_events.<category>`.

Until now every append notified `cartlog_events` alone, so every process holding a
LISTEN session heard every append. A web process listens only for what its read
caches hold (products, tokens: kernel/fresh_cache.py), yet woke for every cart
command of every process, about 50 µs of CPU each (docs/round-trips.md). Now the
append notifies both: `cartlog_events` with the category, as before, for readers of
every category (the relay, the archiver), and `cartlog_events.<category>` with the
same payload, for a session that wants a few categories. PostgreSQL delivers a
session only the channels it LISTENs on.

The body is 0004's, frozen here as created, with the second notification added.
The channel is `eventlog/channels.py: CHANNEL`, and `channel_of` spells the
category's; a test checks that they agree. Backward restores 0004's body.
"""

from importlib import import_module

from django.db import migrations

ORDER_LOCK = 74260001  # session lock: taking a transaction id and positions, in one order
SLOW_LOCK = 74260002  # transaction lock: shared by fast appends, exclusive for slow ones
CHANNEL = "cartlog_events"

FORWARD = f"""
CREATE OR REPLACE FUNCTION eventlog_append(
    p_stream_id text, p_expected integer, p_events jsonb, p_recorded_at timestamptz
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
    PERFORM pg_notify('{CHANNEL}', category);
    PERFORM pg_notify('{CHANNEL}.' || category, category);
END $$;
"""


def _run(schema_editor, sql: str) -> None:  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:  # raw: the body holds literal % signs
            cursor.execute(sql)


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    _run(schema_editor, FORWARD)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    _run(schema_editor, import_module("eventlog.migrations.0004_append_notifies").FORWARD)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0004_append_notifies")]
    operations = [migrations.RunPython(forward, backward)]
