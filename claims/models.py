"""The claims projection: one row per claim, and its decision so far."""

from django.db import models


class ClaimStatus(models.TextChoices):
    """Where a claim is: it moves forward only (pending -> accepted | rejected; pending or
    accepted -> released; accepted -> used). Accepted and used hold the key."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    RELEASED = "released"
    USED = "used"


class Claim(models.Model):
    claim_id = models.CharField(max_length=64, primary_key=True)
    stream_id = models.CharField(max_length=200, db_index=True)
    kind = models.CharField(max_length=40)
    key = models.CharField(max_length=300)
    claimant = models.CharField(max_length=200)
    status = models.CharField(max_length=20, choices=ClaimStatus.choices)
    reason = models.CharField(max_length=300, default="")
    requested_position = models.BigIntegerField()
    decided_position = models.BigIntegerField(null=True)

    class Meta:
        db_table = "projection_claims"
