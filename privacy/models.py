"""Each person's data keys: outside the log, never relayed, archived or exported.

Destroying a person's keys leaves every box sealed under them unreadable: the
events stay, their personal fields become noise (docs/personal-data.md).
"""

from django.db import models


class DataKey(models.Model):
    """One key of a person (`user:<id>`); the newest seals, every one still opens its own boxes."""

    key_id = models.CharField(max_length=64, primary_key=True)
    person = models.CharField(max_length=200, db_index=True)
    key = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "privacy_data_key"
