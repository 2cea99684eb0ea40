"""accounts.tokens: one token per account, handed out only for the right password."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from accounts.tokens import issue_token

pytestmark = pytest.mark.django_db


def test_logging_in_twice_hands_out_the_same_token() -> None:
    user = get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    first = issue_token(None, "nina", "a-long-passphrase")
    assert first is not None
    assert issue_token(None, "nina", "a-long-passphrase") == first == Token.objects.get(user=user).key


@pytest.mark.parametrize(("username", "password"), [("nina", "wrong"), ("nobody", "a-long-passphrase"), ("nina", "")])
def test_wrong_credentials_get_no_token(username: str, password: str) -> None:
    get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    assert issue_token(None, username, password) is None
    assert not Token.objects.exists()


def test_an_inactive_account_gets_no_token() -> None:
    get_user_model().objects.create_user(username="otto", password="a-long-passphrase", is_active=False)
    assert issue_token(None, "otto", "a-long-passphrase") is None
