"""`eventlog_append` also notifies `cartlog_events` with the stream's category, delivered at commit.

Table-transport consumers LISTEN on that channel (consumers/wakeup.py) instead
of polling the log. PostgreSQL delivers a notification only at commit, and
never for a transaction that rolled back, so a woken consumer finds the events
(unless an older writing transaction still holds them back from gap-safe
readers; it re-reads for a while then). The payload is the category (`cart`
for `cart-<id>`, as RecordedEvent.category), so a consumer wakes only for the
categories it reads. Notifications of one transaction with the same payload
fold into one: an append of several events, or several appends to one
category, wake once.

The body is 0003's, frozen here as created, with the notification added after
the insert. The channel is `eventlog/channels.py: CHANNEL`; a test checks
that they agree. Backward restores 0003's body.
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
    PERFORM pg_notify('{CHANNEL}', split_part(p_stream_id, '-', 1));
END $$;
"""


def _run(schema_editor, sql: str) -> None:  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:  # raw: the body holds literal % signs
            cursor.execute(sql)


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    _run(schema_editor, FORWARD)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    previous = import_module("eventlog.migrations.0003_append_function").FORWARD
    _run(schema_editor, previous.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0003_append_function")]
    operations = [migrations.RunPython(forward, backward)]
