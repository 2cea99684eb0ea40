"""Sign-ups waiting for their username claim to be decided."""

from django.db import models


class PendingSignUp(models.Model):
    """Written before the claim is appended, so whoever sees the claim accepted —
    the requester or the account creator consumer — can create the account, even
    if the requester died in between."""

    claim_id = models.CharField(max_length=64, primary_key=True)
    username = models.CharField(max_length=150)
    password_hash = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "accounts_pending_signup"
