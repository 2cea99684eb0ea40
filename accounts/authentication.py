"""`Authorization: Token <t>` with django-rest-knox: tokens stored as hashes, with an
expiry (REST_KNOX["TOKEN_TTL"]) and revocable one by one (accounts/tokens.py).

Knox decodes the header as UTF-8 and looks its prefix up in the database; a header
that is not a plausible token (non-ASCII, a NUL byte, too long) is refused here
as a 401 first, instead of failing in the decoder or the query with a 500.

Knox reads the token and then every token of its account on each request (two
queries). A token it accepted is kept in `TOKENS`, by its hash, until any token or
account changes (migration 0003 announces `tokens`; kernel/fresh_cache.py says how
the cache stays honest); an expired one is never served from memory.
"""

import copy
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.crypto import hash_token
from rest_framework.exceptions import AuthenticationFailed

from kernel.fresh_cache import FreshCache

MAX_TOKEN_LENGTH = 200
KIND = "tokens"  # what accounts/migrations/0003 notifies on a change of a token or an account

TOKENS: FreshCache[str, tuple[AbstractBaseUser, Any]] = FreshCache(kinds=[KIND])


class TokenAuthentication(KnoxTokenAuthentication):
    def authenticate_credentials(self, token: bytes) -> tuple[AbstractBaseUser, Any]:
        if len(token) > MAX_TOKEN_LENGTH or not token.isascii() or b"\x00" in token:
            raise AuthenticationFailed("Invalid token.")
        digest = hash_token(token.decode())

        def read(_: list[str]) -> dict[str, tuple[AbstractBaseUser, Any]]:
            return {digest: super(TokenAuthentication, self).authenticate_credentials(token)}  # or AuthenticationFailed

        user, auth_token = TOKENS.get_many([digest], read)[digest]
        if auth_token.expiry is not None and auth_token.expiry <= timezone.now():
            return super().authenticate_credentials(token)  # knox deletes it and refuses  # type: ignore[no-any-return]
        return copy.copy(user), copy.copy(auth_token)  # each request its own instances, never the cached ones
