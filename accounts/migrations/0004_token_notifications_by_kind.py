"""A token or account change also notifies the channel of its kind: `cartlog_events.tokens`.

As the log's appends do since eventlog migration 0005: a web process's read caches
LISTEN only on the channels of the kinds they hold (`cartlog_events.tokens`,
`cartlog_events.product`), so that they are not woken by every cart command;
`cartlog_events` still hears `tokens` too, for a session that listens to everything.
Frozen here as created (the channel is `eventlog/channels.py: CHANNEL`).
"""

from django.db import migrations

CHANNEL = "cartlog_events"
KIND = "tokens"

FORWARD = f"""
CREATE OR REPLACE FUNCTION accounts_tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', '{KIND}');
    PERFORM pg_notify('{CHANNEL}.{KIND}', '{KIND}');
    RETURN NULL;
END $$;
"""

BACKWARD = f"""
CREATE OR REPLACE FUNCTION accounts_tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', '{KIND}');
    RETURN NULL;
END $$;
"""


def _run(sql: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_token_notifications")]
    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
