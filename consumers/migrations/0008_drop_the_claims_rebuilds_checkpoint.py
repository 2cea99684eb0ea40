"""Deletes the checkpoint row named `claims` that a swap of that view used to make.

No consumer is named `claims` (the claim validator keeps that view under its own
name), so nothing advanced the row: a later verify read it as what the live
table held. Rebuilds no longer write it (rebuilds.finish: swap)."""

from django.db import migrations


def drop(apps, schema_editor):
    apps.get_model("consumers", "Checkpoint").objects.filter(name="claims").delete()


class Migration(migrations.Migration):
    dependencies = [("consumers", "0007_heartbeat_failing")]

    operations = [migrations.RunPython(drop, migrations.RunPython.noop)]
