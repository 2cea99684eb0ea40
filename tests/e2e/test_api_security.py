"""Security defaults through HTTP: throttled login and sign-up (API and shop share a
budget), password rules, tokens that expire and can be revoked (docs/security.md)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-passphrase"


@pytest.fixture
def low_rates(settings) -> None:
    settings.THROTTLE_RATES = {"login": "3/min", "signup": "2/min"}


def test_the_token_endpoint_is_throttled_with_retry_after_and_even_the_right_password_waits(low_rates: None) -> None:
    get_user_model().objects.create_user(username="mallory-target", password=PASSWORD)
    client = APIClient()
    for _ in range(3):
        assert_problem(
            client.post("/api/auth/token", {"username": "mallory-target", "password": "x"}, format="json"), 400
        )
    refused = client.post("/api/auth/token", {"username": "mallory-target", "password": PASSWORD}, format="json")
    assert_problem(refused, 429)
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert not AuthToken.objects.exists()


def test_the_shop_login_spends_the_same_budget_and_answers_a_friendly_429(low_rates: None) -> None:
    get_user_model().objects.create_user(username="pat", password=PASSWORD)
    for _ in range(2):
        APIClient().post("/api/auth/token", {"username": "pat", "password": "x"}, format="json")
    assert Client().post("/login/", {"username": "pat", "password": "x"}).status_code == 400
    refused = Client().post("/login/", {"username": "pat", "password": PASSWORD})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert b"Too many attempts" in refused.content
    assert Client().get("/login/").status_code == 200  # only attempts count


def test_sign_up_is_throttled_in_the_api_and_the_shop(low_rates: None) -> None:
    weak = {"username": "someone", "password": "123"}
    assert_problem(APIClient().post("/api/accounts", weak, format="json"), 400)
    assert Client().post("/signup/", weak).status_code == 400
    refused = APIClient().post("/api/accounts", weak, format="json")
    assert_problem(refused, 429)
    assert "Retry-After" in refused
    assert Client().post("/signup/", weak).status_code == 429


def test_a_made_up_x_forwarded_for_buys_no_attempts_without_proxies(low_rates: None) -> None:
    """THROTTLE_NUM_PROXIES unset: the budget is the address the connection came from. DRF counted
    by the whole X-Forwarded-For a client sent, so a new made-up one per attempt was never refused."""
    get_user_model().objects.create_user(username="mallory-target", password=PASSWORD)
    client = APIClient()
    wrong = {"username": "mallory-target", "password": "x"}
    for n in range(3):
        assert_problem(client.post("/api/auth/token", wrong, format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}"), 400)
    assert_problem(client.post("/api/auth/token", wrong, format="json", HTTP_X_FORWARDED_FOR="10.0.0.9"), 429)
    refused = Client(HTTP_X_FORWARDED_FOR="10.0.0.10").post("/login/", wrong)  # the shop's door too
    assert refused.status_code == 429


def test_behind_proxies_the_client_address_comes_from_x_forwarded_for(low_rates: None, settings) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    get_user_model().objects.create_user(username="mallory-target", password=PASSWORD)
    wrong = {"username": "mallory-target", "password": "x"}
    for _ in range(3):
        response = APIClient().post("/api/auth/token", wrong, format="json", HTTP_X_FORWARDED_FOR="203.0.113.7")
        assert_problem(response, 400)
    refused = APIClient().post("/api/auth/token", wrong, format="json", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert_problem(refused, 429)
    # Another client behind the same proxy (the same REMOTE_ADDR) has a budget of its own.
    other = APIClient().post("/api/auth/token", wrong, format="json", HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert_problem(other, 400)


@pytest.mark.parametrize(
    ("username", "password", "messages"),
    [
        ("dora", "12345678", ["too common", "entirely numeric"]),
        ("dora", "1234", ["too short", "too common", "entirely numeric"]),
        ("dora-explorer", "dora-explorer", ["too similar to the username"]),
        ("dora", " " * 8, ["characters that are not spaces"]),
        ("dora", "password", ["too common"]),
    ],
)
def test_a_weak_password_is_refused_with_every_validators_message(
    username: str, password: str, messages: list[str]
) -> None:
    body = {"username": username, "password": password}
    problem = assert_problem(APIClient().post("/api/accounts", body, format="json"), 400)
    said = " ".join(problem["errors"]["password"])  # one message per validator that refused it
    for message in messages:
        assert message in said, problem
    page = Client().post("/signup/", body)
    assert page.status_code == 400
    for message in messages:
        assert message in page.content.decode(), message
    assert not get_user_model().objects.exists()


def test_a_token_works_until_it_is_revoked_with_delete(catalog: None) -> None:
    get_user_model().objects.create_user(username="tess", password=PASSWORD)
    token = (
        APIClient().post("/api/auth/token", {"username": "tess", "password": PASSWORD}, format="json").json()["token"]
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post("/api/carts").status_code == 201
    assert client.delete("/api/auth/token").status_code == 204
    assert_problem(client.post("/api/carts"), 401)
    assert_problem(client.delete("/api/auth/token"), 401)
    assert_problem(APIClient().delete("/api/auth/token"), 401)


def test_an_expired_token_is_refused_with_a_401_problem(catalog: None) -> None:
    user = get_user_model().objects.create_user(username="exp", password=PASSWORD)
    _, token = AuthToken.objects.create(user=user, expiry=timedelta(seconds=-1))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post("/api/carts")
    assert_problem(response, 401)
    assert response["WWW-Authenticate"] == "Token"
    assert not AuthToken.objects.exists()  # knox deletes it on sight


def test_a_token_lives_as_long_as_the_setting_says(settings, catalog: None) -> None:
    get_user_model().objects.create_user(username="ttl", password=PASSWORD)
    APIClient().post("/api/auth/token", {"username": "ttl", "password": PASSWORD}, format="json")
    expiry = AuthToken.objects.get().expiry
    assert expiry is not None
    assert timedelta(hours=23) < expiry - AuthToken.objects.get().created <= settings.REST_KNOX["TOKEN_TTL"]


def test_a_stale_token_sent_with_a_login_does_not_refuse_the_login() -> None:
    get_user_model().objects.create_user(username="stale", password=PASSWORD)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.post("/api/auth/token", {"username": "stale", "password": PASSWORD}, format="json").status_code == 200


def test_the_admin_login_spends_the_same_budget_as_the_api_and_the_shop(low_rates: None) -> None:
    """The admin's log-in form was a third door with no budget: a staff password could be guessed
    there without end, at the server's full speed, while the API and the shop answered 429."""
    get_user_model().objects.create_user(username="boss", password=PASSWORD, is_staff=True)
    APIClient().post("/api/auth/token", {"username": "boss", "password": "x"}, format="json")
    Client().post("/login/", {"username": "boss", "password": "x"})
    wrong = Client().post("/admin/login/", {"username": "boss", "password": "x", "next": "/admin/"})
    assert wrong.status_code == 200 and b"Please enter the correct username and password" in wrong.content
    refused = Client().post("/admin/login/", {"username": "boss", "password": PASSWORD, "next": "/admin/"})
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert b"Too many attempts" in refused.content
    assert "_auth_user_id" not in refused.wsgi_request.session  # even the right password waited
    assert Client().get("/admin/login/").status_code == 200  # only attempts count
    assert_problem(APIClient().post("/api/auth/token", {"username": "boss", "password": PASSWORD}, format="json"), 429)


def test_a_new_password_revokes_every_token_of_the_account_but_a_rehash_does_not(catalog: None) -> None:
    """Django ends an account's sessions when its password changes; its API tokens went on working
    until they expired (24 hours), for whoever had taken one with the old password."""
    user = get_user_model().objects.create_user(username="ada", password=PASSWORD)
    client = APIClient()
    first = client.post("/api/auth/token", {"username": "ada", "password": PASSWORD}, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert client.get("/api/orders").status_code == 200

    # Django re-hashes the same password at a log-in when its hasher's work factor rose: not a change.
    user.refresh_from_db()
    current = PBKDF2PasswordHasher.iterations
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "oldsalt1234", iterations=1000)  # as stored years ago
    user.save(update_fields=["password"])
    assert client.get("/api/orders").status_code == 200
    assert (
        APIClient().post("/api/auth/token", {"username": "ada", "password": PASSWORD}, format="json").status_code == 200
    )
    user.refresh_from_db()
    assert user.password.startswith(f"pbkdf2_sha256${current}$")  # re-hashed at that log-in
    assert client.get("/api/orders").status_code == 200
    assert AuthToken.objects.filter(user=user).count() == 2

    user.set_password("another-long-passphrase")  # what the admin's password form does
    user.save()
    assert_problem(client.get("/api/orders"), 401)
    assert not AuthToken.objects.filter(user=user).exists()
