"""The budget of wrong passwords per account name (accounts/throttles.py: FailedLogins): the
address budgets did not slow a guesser who sends each attempt from a new address."""

from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.throttles import FailedLogins
from tests.e2e.api_helpers import assert_problem

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-passphrase"
TOKEN = "/api/auth/token"


class Clock:
    """FailedLogins' clock, moved by hand: the window is an hour, which a test cannot wait."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    # Wide address budgets, so that only the account's can refuse.
    settings.THROTTLE_RATES = {"login": "1000/min", "signup": "1000/min", "login_account": "3/hour"}
    clock = Clock()
    monkeypatch.setattr(FailedLogins, "timer", clock)
    yield clock


def from_address(n: int) -> APIClient:
    return APIClient(REMOTE_ADDR=f"203.0.113.{n}")


def test_wrong_passwords_from_many_addresses_rest_the_account_at_every_door(clock: Clock) -> None:
    get_user_model().objects.create_user(username="Victim", password=PASSWORD, is_staff=True)
    get_user_model().objects.create_user(username="bystander", password=PASSWORD)
    for n in range(3):  # each from an address of its own, and in another spelling of the name
        wrong = {"username": ["Victim", "victim", " VICTIM "][n], "password": "guess"}
        assert_problem(from_address(n).post(TOKEN, wrong, format="json"), 400)

    refused = from_address(10).post(TOKEN, {"username": "Victim", "password": PASSWORD}, format="json")
    assert_problem(refused, 429)
    assert refused["Retry-After"] == "3600"  # the oldest failure leaves the window in an hour
    assert not AuthToken.objects.exists()  # even the right password waits

    shop = Client(REMOTE_ADDR="203.0.113.11").post("/login/", {"username": "victim", "password": PASSWORD})
    assert shop.status_code == 429 and shop["Retry-After"] == "3600"
    assert b"Too many attempts" in shop.content
    assert "_auth_user_id" not in shop.wsgi_request.session

    admin = Client(REMOTE_ADDR="203.0.113.12").post(
        "/admin/login/", {"username": "Victim", "password": PASSWORD, "next": "/admin/"}
    )
    assert admin.status_code == 429 and admin["Retry-After"] == "3600"
    assert "_auth_user_id" not in admin.wsgi_request.session

    # Another account, from the very addresses that guessed, is not touched.
    other = from_address(0).post(TOKEN, {"username": "bystander", "password": PASSWORD}, format="json")
    assert other.status_code == 200


def test_the_account_may_try_again_once_the_oldest_failure_leaves_the_window(clock: Clock) -> None:
    get_user_model().objects.create_user(username="kim", password=PASSWORD)
    for _ in range(2):
        assert_problem(from_address(1).post(TOKEN, {"username": "kim", "password": "guess"}, format="json"), 400)
    clock.now += 1800
    assert_problem(from_address(2).post(TOKEN, {"username": "kim", "password": "guess"}, format="json"), 400)
    clock.now += 1000
    refused = from_address(3).post(TOKEN, {"username": "kim", "password": PASSWORD}, format="json")
    assert_problem(refused, 429)
    assert refused["Retry-After"] == "800"  # 3600 after the first failure, 2800 s of it gone

    clock.now += 800  # the first two failures have left the window: one is left of three
    assert from_address(4).post(TOKEN, {"username": "kim", "password": PASSWORD}, format="json").status_code == 200


def test_the_right_password_spends_nothing_and_a_refusal_adds_no_failure(clock: Clock) -> None:
    get_user_model().objects.create_user(username="lee", password=PASSWORD)
    right = {"username": "lee", "password": PASSWORD}
    for _ in range(5):
        assert from_address(1).post(TOKEN, right, format="json").status_code == 200
    for _ in range(3):
        assert_problem(from_address(1).post(TOKEN, {"username": "lee", "password": "guess"}, format="json"), 400)
    for _ in range(5):  # refused while resting: these do not push the end of the wait further out
        assert_problem(from_address(1).post(TOKEN, right, format="json"), 429)
    clock.now += 3600
    assert from_address(1).post(TOKEN, right, format="json").status_code == 200


def test_a_name_nobody_holds_has_a_budget_too_so_a_refusal_tells_nothing(clock: Clock) -> None:
    """Were only existing accounts counted, a 429 after three tries would say the name exists."""
    for _ in range(3):
        assert_problem(from_address(1).post(TOKEN, {"username": "nobody", "password": "x"}, format="json"), 400)
    assert_problem(from_address(2).post(TOKEN, {"username": "nobody", "password": "x"}, format="json"), 429)
