"""The claims projection: one row per claim, and its decision so far."""

from django.db import models


class Claim(models.Model):
    claim_id = models.CharField(max_length=64, primary_key=True)
    stream_id = models.CharField(max_length=200, db_index=True)
    kind = models.CharField(max_length=40)
    key = models.CharField(max_length=300)
    claimant = models.CharField(max_length=200)
    status = models.CharField(max_length=20)  # pending | accepted | rejected | released | used
    reason = models.CharField(max_length=300, default="")
    requested_position = models.BigIntegerField()
    decided_position = models.BigIntegerField(null=True)

    class Meta:
        db_table = "projection_claims"
