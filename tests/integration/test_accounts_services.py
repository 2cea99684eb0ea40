"""accounts.services: what sign_up accepts, what it answers, and who owns a user's carts."""

from typing import Any

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.test import Client
from rest_framework.test import APIClient

from accounts import services
from accounts.models import PendingSignUp
from api.problems import status_for
from tests.e2e.api_helpers import log_snapshot


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "password", "field"),
    [
        ("al", "a-long-passphrase", "username"),
        ("x" * 151, "a-long-passphrase", "username"),
        ("bad name!", "a-long-passphrase", "username"),
        ("   ", "a-long-passphrase", "username"),
        ("henry", "123", "password"),
        ("henry", "password", "password"),
        ("henry", "", "password"),
    ],
)
def test_an_unacceptable_username_or_password_is_refused_before_anything_is_claimed(
    username: str, password: str, field: str
) -> None:
    before = log_snapshot()
    with pytest.raises(services.SignUpError) as refused:
        services.sign_up(username, password)
    assert (refused.value.field, status_for(refused.value)) == (field, 400)
    assert refused.value.detail
    assert log_snapshot() == before
    assert not PendingSignUp.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_username_is_taken_whatever_its_case_and_the_first_sign_up_keeps_it(claim_consumers: None) -> None:
    created = services.sign_up("Alice", "correct horse battery")
    assert created.status == "created" and created.user is not None
    assert (created.user.get_username(), created.claim_id is not None) == ("Alice", True)
    assert created.user.check_password("correct horse battery")  # type: ignore[attr-defined]

    taken = services.sign_up("alice", "another long passphrase")
    assert (taken.status, taken.user) == ("taken", None)
    assert "already taken" in taken.detail
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["Alice"]


@pytest.mark.django_db(transaction=True)
def test_any_spelling_that_makes_a_name_taken_also_logs_in_to_it(claim_consumers: None, settings: Any) -> None:
    settings.CLAIM_WAIT_SECONDS = 10  # a loaded machine; the shop's default is 1
    assert services.sign_up("Alice", "correct horse battery").status == "created"
    assert services.sign_up("\ufb01sh", "correct horse battery").status == "created"  # the ligature ﬁ
    assert set(get_user_model().objects.values_list("username", flat=True)) == {"Alice", "fish"}  # NFKC, as Django

    full_width_alice = "\uff21\uff4c\uff49\uff43\uff45"
    spellings = [("Alice", "Alice"), ("alice", "Alice"), ("ALICE", "Alice"), (" alice ", "Alice"),
                 (full_width_alice, "Alice"), ("fish", "fish"), ("\ufb01sh", "fish"), ("FISH", "fish")]  # fmt: skip
    for typed, account in spellings:
        user = authenticate(username=typed, password="correct horse battery")
        assert user is not None and user.get_username() == account, typed
        token = APIClient().post(
            "/api/auth/token", {"username": typed, "password": "correct horse battery"}, format="json"
        )
        assert token.status_code == 200, (typed, token.content)
        assert Client().post("/login/", {"username": typed, "password": "correct horse battery"}).status_code == 302
    assert authenticate(username="alice", password="a wrong passphrase") is None
    assert authenticate(username="alicia", password="correct horse battery") is None


@pytest.mark.django_db
def test_a_users_carts_belong_to_the_principal_user_colon_pk() -> None:
    user = get_user_model().objects.create_user(username="bob", password="a-long-passphrase")
    assert str(services.principal(user)) == f"user:{user.pk}"


def test_a_sign_up_result_is_a_frozen_value() -> None:
    result = services.SignUpResult(status=services.SignUpStatus.PENDING, claim_id="c-1", detail="still checking")
    with pytest.raises(AttributeError):
        result.status = services.SignUpStatus.CREATED  # type: ignore[misc]


@pytest.mark.django_db
def test_createsuperuser_refuses_a_name_held_in_another_case() -> None:
    from django.core.management import CommandError, call_command

    get_user_model().objects.create_user(username="Bobby", password="a-long-passphrase")
    with pytest.raises(CommandError, match="already taken, as 'Bobby'"):
        call_command("createsuperuser", "--noinput", "--username", "bobby", "--email", "b@example.com")
    call_command("createsuperuser", "--noinput", "--username", "carol", "--email", "c@example.com")
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["Bobby", "carol"]
