"""Idempotency records: which command ids have run, and what they produced.

The outcome is not copied here: it is the cart at `version`, which the log can
always replay. A rejected command leaves no record (invariant 8).
"""

from django.db import models


class ProcessedCommand(models.Model):
    command_id = models.CharField(max_length=300, primary_key=True)  # "<actor>|<Idempotency-Key>"
    fingerprint = models.CharField(max_length=64)
    cart_id = models.CharField(max_length=64)
    version = models.PositiveIntegerField()
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "carts_processed_command"
