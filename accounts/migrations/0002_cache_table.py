"""The cache table of settings.CACHES when it was DatabaseCache: the throttles' counters, shared
by every gunicorn worker. Since the budgets are counted in `accounts_attempt` (0006), CACHES keeps
nothing and this makes no table; 0007 drops the one an older database has."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
