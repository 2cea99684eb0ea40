"""Every change to an API token or an account notifies `cartlog_events` with `tokens`, at commit.

Each web process keeps the tokens it has checked in memory (accounts/authentication.py)
and drops them all when `tokens` is announced: a revoked or expired token, a deactivated
or deleted account, stop working in every process once the notification arrives
(milliseconds), without a query per request meanwhile. Statement-level triggers: a
statement that deletes many tokens notifies once. The channel is the log's
(`eventlog/channels.py: CHANNEL`, frozen here as created), whose LISTEN session every
process already holds; consumers that read every category wake once and find nothing.
"""

from django.db import migrations

CHANNEL = "cartlog_events"
KIND = "tokens"

FORWARD = f"""
CREATE FUNCTION accounts_tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', '{KIND}');
    RETURN NULL;
END $$;
CREATE TRIGGER accounts_token_changed AFTER UPDATE OR DELETE OR TRUNCATE ON knox_authtoken
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_tokens_changed();
CREATE TRIGGER accounts_user_changed AFTER UPDATE OR DELETE OR TRUNCATE ON auth_user
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_tokens_changed();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS accounts_token_changed ON knox_authtoken;
DROP TRIGGER IF EXISTS accounts_user_changed ON auth_user;
DROP FUNCTION IF EXISTS accounts_tokens_changed();
"""


def _run(sql: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_cache_table"),
        ("knox", "0009_extend_authtoken_field"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]
    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
