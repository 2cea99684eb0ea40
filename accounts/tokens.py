"""API tokens: a username and password exchanged for a token that authenticates
every later request (`Authorization: Token <t>`) until it expires
(REST_KNOX["TOKEN_TTL"], API_TOKEN_TTL_HOURS) or is revoked. Only a hash of each
token is stored (django-rest-knox), so the table leaks no usable token."""

from typing import Any

from django.contrib.auth import authenticate
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
