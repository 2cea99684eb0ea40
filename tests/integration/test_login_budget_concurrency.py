"""Wrong passwords sent at the same moment spend the account's budget one each
(accounts/throttles.py: FailedLogins).

Eight threads, each on a connection of its own, wait at a barrier and then log in
to one name with a wrong password, through the authentication backend every door
passes; the password check is Django's real PBKDF2. With the budget at 3, no more
than 3 attempts may reach a password, at once or one after the other. A count
kept in the cache, read before the check and written after it, let all eight through.
"""

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password

from accounts.models import Attempt
from accounts.throttles import AccountResting
from tests.threads import run_together

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-passphrase"
ATTEMPTS = 8


def attempt_all_at_once(name: str, password: str) -> list[str]:
    """Each thread's outcome: 'checked' (its password was checked and wrong), 'refused' or 'in'."""
    outcomes: list[str] = []

    def log_in(_: int) -> None:
        try:
            outcomes.append("in" if authenticate(None, username=name, password=password) else "checked")
        except AccountResting:
            outcomes.append("refused")

    assert run_together(ATTEMPTS, log_in) == []
    return outcomes


def test_eight_wrong_passwords_at_once_and_five_after_reach_the_password_three_times(settings) -> None:
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login_account": "3/hour"}
    get_user_model().objects.create_user(username="target", password=PASSWORD)

    at_once = attempt_all_at_once("target", "guess")
    one_by_one = []
    for _ in range(5):
        try:
            one_by_one.append("in" if authenticate(None, username="target", password="guess") else "checked")
        except AccountResting:
            one_by_one.append("refused")

    checked = at_once.count("checked") + one_by_one.count("checked")
    assert checked == 3, (at_once, one_by_one)
    assert (
        Attempt.objects.filter(budget="login_account").count() == 3
    )  # the failures; no refused attempt stayed counted
    with pytest.raises(AccountResting):
        authenticate(None, username="target", password=PASSWORD)  # even the right one waits now


def test_right_passwords_at_once_are_not_counted(settings) -> None:
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login_account": "20/hour"}
    get_user_model().objects.create_user(username="shopper", password=PASSWORD)

    assert attempt_all_at_once("shopper", PASSWORD) == ["in"] * ATTEMPTS

    assert not Attempt.objects.filter(budget="login_account").exists()


class UnreachableHasher(PBKDF2PasswordHasher):
    """A hasher whose check cannot run, as one that asks a hashing service that is down."""

    algorithm = "unreachable"

    def verify(self, password: str, encoded: str) -> bool:
        raise ConnectionError("the hashing service is unreachable")


def test_a_check_that_fails_is_not_counted_as_a_wrong_password(settings) -> None:
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login_account": "3/hour"}
    settings.PASSWORD_HASHERS = [*settings.PASSWORD_HASHERS, f"{__name__}.UnreachableHasher"]
    user = get_user_model().objects.create_user(username="broken")
    user.password = make_password(PASSWORD, hasher="unreachable")
    user.save()

    for _ in range(4):  # one more than the budget: each attempt reached the check, none was wrong
        with pytest.raises(ConnectionError):
            authenticate(None, username="broken", password=PASSWORD)

    assert Attempt.objects.filter(budget="login_account").count() == 0
