"""Log-in attempts held against an account name's budget of wrong passwords (accounts/throttles.py:
FailedLogins): rows of their own, counted by the database, instead of a list in the cache that
simultaneous attempts each read, then wrote back with only their own added."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_token_notifications_by_kind"),
    ]

    operations = [
        migrations.CreateModel(
            name="FailedLogin",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name_hash", models.CharField(max_length=64)),
                ("at", models.FloatField()),
            ],
            options={
                "db_table": "accounts_failed_login",
                "indexes": [
                    models.Index(fields=["name_hash", "at"], name="failed_login_name_at"),
                    models.Index(fields=["at"], name="failed_login_at"),
                ],
            },
        ),
    ]
