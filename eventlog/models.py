"""The event table. Rows are written by `eventlog.store` only, and never changed.

PostgreSQL also gets a `transaction_id xid8` column (see migration 0002 and
docs/adr/0002-gap-safe-readers.md); the ORM does not map it on purpose.
"""

from django.db import models


class Event(models.Model):
    position = models.BigAutoField(primary_key=True)
    event_id = models.UUIDField(unique=True)
    stream_id = models.CharField(max_length=200)
    version = models.PositiveIntegerField()
    type = models.CharField(max_length=100)
    schema_version = models.PositiveSmallIntegerField(default=1)
    data = models.JSONField()
    metadata = models.JSONField(default=dict)
    occurred_at = models.DateTimeField()
    recorded_at = models.DateTimeField()

    class Meta:
        db_table = "eventlog_event"
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["stream_id", "version"], name="event_stream_version_unique"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="event_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.position} {self.stream_id}@{self.version} {self.type}"
