"""`Authorization: Token <t>` with django-rest-knox: tokens stored as hashes, with an
expiry (REST_KNOX["TOKEN_TTL"]) and revocable one by one (accounts/tokens.py).

Knox decodes the header as UTF-8 and looks its prefix up in the database; a header
that is not a plausible token (non-ASCII, a NUL byte, too long) is refused here
as a 401 first, instead of failing in the decoder or the query with a 500.
"""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

MAX_TOKEN_LENGTH = 200


class TokenAuthentication(KnoxTokenAuthentication):
    def authenticate_credentials(self, token: bytes) -> tuple[AbstractBaseUser, Any]:
        if len(token) > MAX_TOKEN_LENGTH or not token.isascii() or b"\x00" in token:
            raise AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)  # type: ignore[no-any-return]
