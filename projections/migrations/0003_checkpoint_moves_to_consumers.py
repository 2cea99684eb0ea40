from django.db import migrations


class Migration(migrations.Migration):
    """The Checkpoint model now belongs to `consumers`; its table stays as it is."""

    dependencies = [("projections", "0002_orderhistory_productactivity")]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="Checkpoint")]),
    ]
