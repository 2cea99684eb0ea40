from django.db import migrations, models


class Migration(migrations.Migration):
    """Adopts the existing projection_checkpoint table (state only: no SQL runs)."""

    dependencies = [
        ("consumers", "0002_heartbeat_kafkaprogress"),
        ("projections", "0003_checkpoint_moves_to_consumers"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Checkpoint",
                    fields=[
                        ("name", models.CharField(max_length=100, primary_key=True, serialize=False)),
                        ("position", models.BigIntegerField(default=0)),
                        ("projection_version", models.PositiveIntegerField(default=0)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                    ],
                    options={"db_table": "projection_checkpoint"},
                )
            ]
        ),
    ]
