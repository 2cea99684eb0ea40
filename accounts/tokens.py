"""API tokens: a username and password exchanged for a token that authenticates
every later request (`Authorization: Token <t>`) until it expires
(REST_KNOX["TOKEN_TTL"], API_TOKEN_TTL_HOURS) or is revoked. Only a hash of each
token is stored (django-rest-knox), so the table leaks no usable token.

A new password revokes every token of the account (`revoke_on_new_password`, wired in
accounts/apps.py): Django ends the account's sessions when its password hash changes, but a
token taken before, by whoever knew the old password, went on working until it expired.
"""

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest
from django.utils import timezone
from knox.models import AuthToken

from .authentication import TOKENS


def issue_token(request: HttpRequest | None, username: str, password: str) -> str | None:
    """A new token for the account, or None if the credentials are wrong or the
    account is inactive. Each login has its own token, revoked on its own."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        return None
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()  # expired ones are dead weight
    _, token = AuthToken.objects.create(user=user)
    return str(token)


def revoke(auth: Any) -> None:
    """Revoke the token a request was authenticated with (`request.auth`)."""
    if isinstance(auth, AuthToken):
        auth.delete()
        TOKENS.clear()  # this process at once; the others when migration 0003's NOTIFY arrives


def revoke_on_new_password(
    sender: type[AbstractBaseUser], instance: AbstractBaseUser, update_fields: Any = None, **kwargs: Any
) -> None:
    """pre_save of the user model: if the password hash changes, the account's tokens go.

    Not for Django's own re-hash of the same password at a log-in (after its hasher's work factor
    rose): `check_password` saves only `password` and clears the raw password that `set_password`
    keeps until the save, Django's mark that this is no password change."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    raw_given = getattr(instance, "_password", None)  # set_password keeps it until the save
    if raw_given is None and update_fields is not None and set(update_fields) == {"password"}:
        return  # Django's re-hash
    stored = type(instance)._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is None or stored == instance.password:
        return
    AuthToken.objects.filter(user_id=instance.pk).delete()
    TOKENS.clear()  # this process at once; the others when migration 0003's NOTIFY arrives
