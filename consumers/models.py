"""Where consumers stand (checkpoints, Kafka progress) and who runs them (leases, heartbeats).

Leases: at most one runner per consumer name on the table transport.

PostgreSQL uses a session advisory lock instead (it dies with its process);
SQLite has none, so a lease row with an expiry stands in, renewed every batch.
"""

from django.db import models


class Checkpoint(models.Model):
    """How far a consumer has read the log; written in the same transaction as its work.

    The table keeps the name it was born with (`projection_checkpoint`): the
    model moved here from `projections` when checkpoints got one owner.
    """

    name = models.CharField(max_length=100, primary_key=True)
    position = models.BigIntegerField(default=0)
    projection_version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "projection_checkpoint"


class LeaseRow(models.Model):
    """The SQLite stand-in for a lease: a row with an expiry (consumers/lease.py)."""

    name = models.CharField(max_length=100, primary_key=True)
    holder = models.CharField(max_length=200)
    expires_at = models.DateTimeField()

    class Meta:
        db_table = "consumer_lease"


class KafkaProgress(models.Model):
    """The highest log position a consumer applied from one Kafka partition.

    Written in the consumer's transaction with its view rows. A message at or
    below it is a repeat — a redelivery, or the relay re-sending after a crash —
    and is dropped: within a partition, the relay produces in position order.
    A rebuild's swap raises it to the new table's position. A partition without
    a row has applied nothing yet.
    """

    consumer = models.CharField(max_length=100)
    topic = models.CharField(max_length=200)
    partition = models.IntegerField()
    position = models.BigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "Kafka progress"
        db_table = "consumer_kafka_progress"
        constraints = [models.UniqueConstraint(fields=["consumer", "topic", "partition"], name="kafka_progress_unique")]


class Heartbeat(models.Model):
    """A running consumer (or the relay) says so every few seconds: `GET /api/projections` shows it."""

    name = models.CharField(max_length=100, primary_key=True)
    transport = models.CharField(max_length=20)
    beat_at = models.DateTimeField()
    pid = models.IntegerField()
    # While its batches fail: the last error in a line, and since when (a beating consumer is not a working one).
    failing = models.TextField(blank=True, default="")
    failing_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "consumer_heartbeat"


class FaultSwitch(models.Model):
    """A fault lab switch (consumers/faults.py): off unless a row says on; flipped from another process."""

    name = models.CharField(max_length=40, primary_key=True)
    on = models.BooleanField(default=False)
    consumer = models.CharField(max_length=100, default="")  # the consumer it acts on, if it acts on one
    fired = models.PositiveIntegerField(default=0)  # how often it took effect since it was last turned on
    note = models.CharField(max_length=300, default="")  # what it did last, in words
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "fault switches"
        db_table = "consumer_fault_switch"
