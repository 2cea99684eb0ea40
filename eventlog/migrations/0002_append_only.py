"""Invariant 1 in the database itself, and the column readers use on PostgreSQL.

- Triggers refuse UPDATE and DELETE on the event table, on both backends.
  SQLite's DELETE trigger yields only to a row in `eventlog_purge_permit`, a
  table no application code writes: it exists so the test harness can empty a
  throwaway test database (Django's flush uses DELETE on SQLite; on PostgreSQL it
  uses TRUNCATE, which a production role without ownership cannot run).
- PostgreSQL gets `transaction_id xid8`, the id of the transaction that wrote
  the row; see docs/adr/0002-gap-safe-readers.md.
"""

from django.db import migrations

POSTGRES_FORWARD = [
    """
    CREATE FUNCTION eventlog_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'eventlog_event is append-only: % refused', TG_OP
            USING ERRCODE = 'restrict_violation';
    END $$
    """,
    """
    CREATE TRIGGER eventlog_event_append_only
    BEFORE UPDATE OR DELETE ON eventlog_event
    FOR EACH ROW EXECUTE FUNCTION eventlog_refuse_change()
    """,
    "ALTER TABLE eventlog_event ADD COLUMN transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id()",
]
POSTGRES_BACKWARD = [
    "ALTER TABLE eventlog_event DROP COLUMN transaction_id",
    "DROP TRIGGER eventlog_event_append_only ON eventlog_event",
    "DROP FUNCTION eventlog_refuse_change()",
]

SQLITE_FORWARD = [
    "CREATE TABLE eventlog_purge_permit (id INTEGER PRIMARY KEY)",
    """
    CREATE TRIGGER eventlog_event_no_update BEFORE UPDATE ON eventlog_event
    BEGIN SELECT RAISE(ABORT, 'eventlog_event is append-only: UPDATE refused'); END
    """,
    """
    CREATE TRIGGER eventlog_event_no_delete BEFORE DELETE ON eventlog_event
    WHEN NOT EXISTS (SELECT 1 FROM eventlog_purge_permit)
    BEGIN SELECT RAISE(ABORT, 'eventlog_event is append-only: DELETE refused'); END
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER eventlog_event_no_delete",
    "DROP TRIGGER eventlog_event_no_update",
    "DROP TABLE eventlog_purge_permit",
]


def run(statements_by_vendor: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    def operation(apps, schema_editor):  # type: ignore[no-untyped-def]
        # A raw cursor without params: the statements hold literal % signs.
        with schema_editor.connection.cursor() as cursor:
            for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
                cursor.execute(statement)

    return operation


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0001_initial")]

    operations = [
        migrations.RunPython(
            run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        )
    ]
