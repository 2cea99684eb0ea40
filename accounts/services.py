"""Signing up and logging in. Uniqueness of usernames is decided by the user
table for now; issue 6 moves it to claim events decided in log order.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from cartlog.problems import DomainError
from carts.services import principal_for_user


class SignUpError(DomainError):
    """The username or password is not acceptable (HTTP 400)."""

    title = "Invalid sign-up"

    def __init__(self, detail: str, field: str) -> None:
        super().__init__(detail)
        self.field = field


@dataclass(frozen=True, kw_only=True)
class SignUpResult:
    status: str  # "created" | "taken" | "pending"
    user: AbstractBaseUser | None = None
    claim_id: str | None = None
    detail: str = ""


def principal(user: AbstractBaseUser) -> str:
    """The actor string that owns this user's carts."""
    return principal_for_user(int(user.pk))


def validate(username: str, password: str) -> str:
    username = username.strip()
    if not 3 <= len(username) <= 150:
        raise SignUpError("A username has 3 to 150 characters.", "username")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise SignUpError("A username may hold letters, digits and @ . + - _ only.", "username") from None
    try:
        validate_password(password)
    except ValidationError as error:
        raise SignUpError(" ".join(error.messages), "password") from None
    return username


def sign_up(username: str, password: str) -> SignUpResult:
    username = validate(username, password)
    User = get_user_model()
    if User.objects.filter(username__iexact=username).exists():
        return SignUpResult(status="taken", detail=f"The username {username!r} is already taken.")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
    except IntegrityError:
        return SignUpResult(status="taken", detail=f"The username {username!r} is already taken.")
    return SignUpResult(status="created", user=user)
