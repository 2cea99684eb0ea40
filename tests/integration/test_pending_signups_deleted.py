"""A pending sign-up (name and password hash) is deleted once its claim is decided,
accepted or rejected: no password hash outlives its use (accounts/account_creator.py)."""

import pytest
from django.contrib.auth import get_user_model

from accounts import services
from accounts.models import PendingSignUp
from tests.claim_helpers import eventually

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_accepted_and_rejected_sign_ups_leave_no_pending_row(claim_consumers: None) -> None:
    first = services.sign_up("Quinn", "a-long-passphrase", wait_seconds=10)
    assert first.status == "created"
    second = services.sign_up("QUINN", "another-long-passphrase", wait_seconds=10)
    assert second.status == "taken"
    eventually(lambda: not PendingSignUp.objects.exists())
    assert get_user_model().objects.filter(username="Quinn").count() == 1
