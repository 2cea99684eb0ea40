"""The command side's own tables: idempotency records and snapshots.

An idempotency record says which command id has run and what it produced. The
outcome is not copied here: it is the cart at `version`, which the log can
always replay. A rejected command leaves no record (invariant 8). A snapshot is
the decider's fold of a cart at a version (carts/snapshots.py).
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


class CartSnapshot(models.Model):
    """A cart's state as the decider folded it at `version` (carts/snapshots.py); one row per cart, the newest."""

    cart_id = models.CharField(max_length=64, primary_key=True)
    version = models.PositiveIntegerField()
    schema = models.PositiveSmallIntegerField()  # carts.snapshots.SCHEMA when written; another one is ignored
    state = models.JSONField()

    class Meta:
        db_table = "carts_snapshot"
