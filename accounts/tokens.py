"""API tokens: a username and password exchanged for the DRF token that authenticates
every later request (`Authorization: Token <key>`)."""

from django.contrib.auth import authenticate
from django.http import HttpRequest
from rest_framework.authtoken.models import Token


def issue_token(request: HttpRequest | None, username: str, password: str) -> str | None:
    """The account's token (created on first login, then reused), or None if the
    credentials are wrong or the account is inactive."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        return None
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)
