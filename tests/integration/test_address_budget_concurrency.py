"""Log-ins sent from one address at the same moment spend its budget one each
(accounts/throttles.py: AttemptThrottle, counted by CountedBudget).

Eight threads, each on a connection of its own, wait at a barrier and then post to
`POST /api/auth/token` from one address, through DRF's throttle check, with a wrong
password for eight different names (so the per-name budget never refuses). With the
address's budget at 3, no more than 3 may reach a password. DRF's count, a list in the
cache read before the view and written back after it, let them all through.
"""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.models import Attempt
from tests.threads import run_together

pytestmark = pytest.mark.django_db(transaction=True)
ATTEMPTS = 8
ADDRESS = "203.0.113.7"


def post_all_at_once(address: str) -> list[int]:
    """Each thread's status code: 400 (its password was checked and wrong) or 429 (refused)."""
    codes: list[int] = []
    assert run_together(ATTEMPTS, lambda n: codes.append(post(address, f"guess{n}"))) == []
    return codes


def post(address: str, name: str) -> int:
    return (
        APIClient(REMOTE_ADDR=address)
        .post("/api/auth/token", {"username": name, "password": "wrong"}, format="json")
        .status_code
    )


def test_eight_log_ins_at_once_from_one_address_and_five_after_reach_a_password_three_times(settings) -> None:
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": "3/min", "login_account": "20/hour"}
    get_user_model().objects.create_user(username="guess0", password="a-long-passphrase")

    at_once = post_all_at_once(ADDRESS)
    one_by_one = [post(ADDRESS, f"later{n}") for n in range(5)]

    # Two at once for the last place may both be refused, so some of the five may get through; no more
    # than three of the thirteen in all. 400: the password was checked (and wrong); 429: refused.
    assert sorted(at_once + one_by_one) == [400] * 3 + [429] * 10, (at_once, one_by_one)
    assert Attempt.objects.filter(budget="login").count() == 3  # no refused attempt stayed counted
    refused = APIClient(REMOTE_ADDR=ADDRESS).post("/api/auth/token", {"username": "x", "password": "y"}, format="json")
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert post("203.0.113.8", "x") == 400  # another address has its own budget
