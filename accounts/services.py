"""Signing up: the username is claimed in the log and decided by the claim validator
(docs/claims.md); the account itself is created by `accounts.account_creator`.
"""

import logging
from dataclasses import dataclass
from enum import StrEnum
from uuid import uuid4

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError

from claims import services as claims
from claims.models import Claim, ClaimStatus
from kernel.errors import InvalidInputError
from kernel.principal import Principal

from .models import PendingSignUp

log = logging.getLogger(__name__)


class SignUpError(InvalidInputError):
    """The username or password is not acceptable: every refused field at once, in `errors`."""

    title = "Invalid sign-up"

    def __init__(self, errors: dict[str, list[str]]) -> None:
        field, messages = next(iter(errors.items()))
        super().__init__(" ".join(messages), field)
        self.errors = errors
        self.problem_members = {"errors": errors}  # api/problems.py: every field, not only the first


class SignUpStatus(StrEnum):
    CREATED = "created"
    TAKEN = "taken"
    PENDING = "pending"  # no decision came in time: the claim's Location tells it later


@dataclass(frozen=True, kw_only=True)
class SignUpResult:
    status: SignUpStatus
    user: AbstractBaseUser | None = None
    claim_id: str | None = None
    detail: str = ""


def principal(user: AbstractBaseUser) -> Principal:
    """Who acts for this user: the owner of their carts."""
    return Principal.user(int(user.pk))


def validate(username: str, password: str) -> str:
    """The username stripped and in NFKC form (as Django's create_user stores a name: the ligature
    in "ﬁsh" becomes "fi", so the plain letters log in too), or a SignUpError naming what is
    wrong with the username and the password."""
    username = get_user_model().normalize_username(username.strip())
    errors = {field: found for field, found in input_errors(username, password).items() if found}
    if errors:
        raise SignUpError(errors)
    return username


def input_errors(username: str, password: str) -> dict[str, list[str]]:
    # Both fields are checked, so a refused username never hides what is wrong with the password.
    found: dict[str, list[str]] = {"username": [], "password": []}
    if not 3 <= len(username) <= 150:
        found["username"].append("A username has 3 to 150 characters.")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        found["username"].append("A username may hold letters, digits and @ . + - _ only.")
    try:
        # With the would-be user, so UserAttributeSimilarityValidator can refuse the name as password.
        validate_password(password, user=get_user_model()(username=username))
    except ValidationError as error:
        found["password"] += error.messages
    return found


def sign_up(username: str, password: str, *, wait_seconds: float | None = None) -> SignUpResult:
    """Claim the username and wait (short, bounded: claims.waiting) for the validator and the account creator.

    1. a PendingSignUp row (name + password hash) is committed;
    2. `ClaimRequested` is appended to `claim-username-<normalized name>`;
    3. the validator decides in log order; on acceptance the account creator
       consumer creates the account from the pending row.
    The request only watches: "created", "taken", or "pending" if no answer came in time.
    """
    username = validate(username, password)
    claim_id = str(uuid4())
    PendingSignUp.objects.create(claim_id=claim_id, username=username, password_hash=make_password(password))
    claims.request("username", username, claimant=str(Principal.signup(claim_id)), claim_id=claim_id)
    User = get_user_model()

    def answered(claim: Claim) -> bool:  # taken, or accepted and the account is there
        made = claim.status == ClaimStatus.ACCEPTED and User.objects.filter(username=username).exists()
        return made or claim.status in (ClaimStatus.REJECTED, ClaimStatus.RELEASED)

    try:
        claim = claims.wait(claim_id, wait_seconds, until=answered)
        if claim is not None and claim.status in (ClaimStatus.REJECTED, ClaimStatus.RELEASED):
            return SignUpResult(
                status=SignUpStatus.TAKEN, claim_id=claim_id, detail=f"The username {username!r} is already taken."
            )
        accepted = claim is not None and claim.status == ClaimStatus.ACCEPTED
        if accepted and (user := User.objects.filter(username=username).first()) is not None:
            return SignUpResult(status=SignUpStatus.CREATED, user=user, claim_id=claim_id)
    except (OperationalError, InterfaceError) as error:  # the database went away (cartlog/outage.py: is_outage)
        # The claim is committed: the sign-up goes on without this request (the validator decides, the
        # account creator makes the account), so it is pending, not the outage's "nothing was changed".
        # A bug's error (an IntegrityError, say) is not caught: it is a 500, not a pending sign-up.
        log.warning("sign-up %s: the database went away while it waited (%s); answered pending", claim_id, error)
    return SignUpResult(status=SignUpStatus.PENDING, claim_id=claim_id, detail="Your username is still being checked.")
