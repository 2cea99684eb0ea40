"""Leases: at most one runner per consumer name on the table transport.

PostgreSQL uses a session advisory lock instead (it dies with its process);
SQLite has none, so a lease row with an expiry stands in, renewed every batch.
"""

from django.db import models


class Lease(models.Model):
    name = models.CharField(max_length=100, primary_key=True)
    holder = models.CharField(max_length=200)
    expires_at = models.DateTimeField()

    class Meta:
        db_table = "consumer_lease"
