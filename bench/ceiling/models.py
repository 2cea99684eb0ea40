"""One plain table, no triggers, no log: what the ceiling endpoint inserts into."""

from django.db import models


class CeilingRow(models.Model):
    sku = models.CharField(max_length=40)
    quantity = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    # Spelled out: mypy's Django plugin reads cartlog.settings, which never installs this app.
    objects: "models.Manager[CeilingRow]" = models.Manager()
