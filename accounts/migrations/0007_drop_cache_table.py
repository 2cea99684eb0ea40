"""Drop `cartlog_cache`, the table of Django's database cache (0002): the address budgets were
counted there until every budget moved to `accounts_attempt` (0006), and nothing else used it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_attempt")]

    operations = [migrations.RunSQL("DROP TABLE IF EXISTS cartlog_cache", migrations.RunSQL.noop)]
