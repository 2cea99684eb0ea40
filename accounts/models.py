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


class FailedLogin(models.Model):
    """One log-in attempt held against an account name's budget of wrong passwords
    (accounts/throttles.py: FailedLogins). Written before the password is checked and deleted
    again if it was right, so what stays is the failures; rows older than the budget's window
    are deleted by the next attempt."""

    name_hash = models.CharField(max_length=64)  # sha256 of the normalized name: the table holds no names
    at = models.FloatField()  # seconds since the epoch, on the throttles' clock (time.time)

    class Meta:
        db_table = "accounts_failed_login"
        indexes = [
            models.Index(fields=["name_hash", "at"], name="failed_login_name_at"),
            models.Index(fields=["at"], name="failed_login_at"),
        ]
