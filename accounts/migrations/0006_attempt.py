"""Every attempt budget counted by the database (accounts/throttles.py: CountedBudget): the per-address
log-in and sign-up budgets join the per-name one, whose table this replaces. The per-address counts were
a list in the cache that attempts sent at once each read, then wrote back with only their own added.

The old table's rows are not carried over: they are failures of the last hour at most, so an account
name's budget starts full once, at the upgrade."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_failed_login"),
    ]

    operations = [
        migrations.DeleteModel(name="FailedLogin"),
        migrations.CreateModel(
            name="Attempt",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("budget", models.CharField(max_length=32)),
                ("key_hash", models.CharField(max_length=64)),
                ("at", models.FloatField()),
            ],
            options={
                "db_table": "accounts_attempt",
                "indexes": [
                    models.Index(fields=["budget", "key_hash", "at"], name="attempt_budget_key_at"),
                    models.Index(fields=["budget", "at"], name="attempt_budget_at"),
                ],
            },
        ),
    ]
