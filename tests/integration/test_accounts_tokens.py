"""accounts.tokens: a new expiring token per login, handed out only for the right password,
stored only as a hash, and revocable."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from knox.models import AuthToken

from accounts.tokens import issue_token, revoke

pytestmark = pytest.mark.django_db


def test_each_login_hands_out_its_own_expiring_token_stored_as_a_hash() -> None:
    user = get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    first = issue_token(None, "nina", "a-long-passphrase")
    second = issue_token(None, "nina", "a-long-passphrase")
    assert first and second and first != second
    rows = list(AuthToken.objects.filter(user=user))
    assert len(rows) == 2
    assert all(row.expiry is not None and row.expiry > timezone.now() for row in rows)
    assert not {row.digest for row in rows} & {first, second}


def test_a_login_clears_the_accounts_expired_tokens() -> None:
    user = get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    AuthToken.objects.create(user=user, expiry=timedelta(seconds=-1))
    issue_token(None, "nina", "a-long-passphrase")
    assert AuthToken.objects.filter(user=user).count() == 1


def test_revoking_deletes_only_that_token() -> None:
    user = get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    kept, _ = AuthToken.objects.create(user=user)
    gone, _ = AuthToken.objects.create(user=user)
    revoke(gone)
    assert list(AuthToken.objects.filter(user=user)) == [kept]


@pytest.mark.parametrize(("username", "password"), [("nina", "wrong"), ("nobody", "a-long-passphrase"), ("nina", "")])
def test_wrong_credentials_get_no_token(username: str, password: str) -> None:
    get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    assert issue_token(None, username, password) is None
    assert not AuthToken.objects.exists()


def test_an_inactive_account_gets_no_token() -> None:
    get_user_model().objects.create_user(username="otto", password="a-long-passphrase", is_active=False)
    assert issue_token(None, "otto", "a-long-passphrase") is None
