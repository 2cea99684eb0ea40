"""`DELETE /api/accounts/me` from a signed-in browser: the session works as docs/api.md says
it does for every endpoint ("the browser's session cookie works too; then commands need
the CSRF token, or get 403"). It answered 401 "Authentication credentials were not
provided" to a signed-in shopper, as the view took tokens alone."""

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase"
CSRF = "k" * 32  # a CSRF secret as the cookie holds it; Django accepts it unmasked in the header


def signed_in(username: str) -> tuple[APIClient, Any]:
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username=username, password=PASSWORD)
    client.cookies["csrftoken"] = CSRF
    return client, user


def test_forget_me_with_a_session_needs_the_csrf_token() -> None:
    client, user = signed_in("ada")
    body = assert_problem(client.delete("/api/accounts/me"), 403)
    assert body["detail"] == "CSRF Failed: CSRF token missing."
    user.refresh_from_db()
    assert user.is_active


def test_forget_me_with_a_session_closes_the_account_and_ends_the_session() -> None:
    client, user = signed_in("ada")
    assert client.get("/api/orders").status_code == 200
    assert client.delete("/api/accounts/me", HTTP_X_CSRFTOKEN=CSRF).status_code == 204
    user.refresh_from_db()
    assert not user.is_active
    assert_problem(client.get("/api/orders"), 401)  # the session ended with the account


def test_forget_me_drops_the_password_hash_and_every_other_session_of_the_account() -> None:
    """A closed account kept its password hash (crackable from a leaked table if the password
    is used elsewhere); it is replaced by an unusable one, which also ends the account's other
    sessions (Django checks each session against the hash)."""
    client, user = signed_in("ada")
    other_browser = APIClient()
    assert other_browser.login(username="ada", password=PASSWORD)
    kept_hash = user.password
    assert client.delete("/api/accounts/me", HTTP_X_CSRFTOKEN=CSRF).status_code == 204
    user.refresh_from_db()
    assert user.password != kept_hash and user.password.startswith("!")  # Django's unusable password
    assert not user.has_usable_password() and not user.check_password(PASSWORD)
    assert_problem(other_browser.get("/api/orders"), 401)
