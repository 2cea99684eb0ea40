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


class Attempt(models.Model):
    """One attempt held against a budget (accounts/throttles.py: CountedBudget): a log-in or a
    sign-up from one client address, or a wrong password for one account name. Written before
    the attempt goes on; a refused one is deleted again, and so is a log-in whose password was
    right (the name's budget counts failures only). Rows older than their budget's window are
    deleted by the budget's next attempt."""

    budget = models.CharField(max_length=32)  # the THROTTLE_RATES key: "login", "signup", "login_account"
    key_hash = models.CharField(max_length=64)  # sha256 of the address or the normalized name: none is stored
    at = models.FloatField()  # seconds since the epoch, on the throttles' clock (time.time)

    class Meta:
        db_table = "accounts_attempt"
        indexes = [
            models.Index(fields=["budget", "key_hash", "at"], name="attempt_budget_key_at"),
            models.Index(fields=["budget", "at"], name="attempt_budget_at"),
        ]
