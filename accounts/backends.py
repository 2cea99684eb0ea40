"""Logging in with any spelling of a name that sign-up counts as the same one.

Sign-up makes names unique after NFKC normalization and case folding
(`claims/keys.py`): once `Alice` exists, `alice` is taken. Django's own backend
looks the typed name up exactly, so `alice` could not log in to the account
`Alice` although nobody else can hold that name. This backend first finds the
stored name the typed one stands for, then lets Django's backend check the
password (its timing, `is_active` and hashing as they are).

It is also the one place every log-in door passes (the API's token, the shop's and the
admin's forms), so it keeps the account's budget of wrong passwords (accounts/throttles.py:
FailedLogins): each attempt is counted before its password is checked, taken back if it
was right or if the check itself failed, and a name whose budget is spent is refused.
"""

import contextlib
import unicodedata
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.db import DatabaseError
from django.db.models import Q
from django.http import HttpRequest

from claims import keys

from .throttles import AccountResting, FailedLogins


class OneNameBackend(ModelBackend):
    # ModelBackend's own signature, which django-stubs already marks as narrowing BaseBackend's.
    def authenticate(  # type: ignore[override]
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if username is None:
            return super().authenticate(request, username=username, password=password, **kwargs)
        budget = FailedLogins()
        wait = budget.take(keys.normalize("username", username))  # counted before the check: see FailedLogins
        if wait is not None:
            raise AccountResting(wait=wait)
        try:
            user = super().authenticate(request, username=stored_name(username), password=password, **kwargs)
        except BaseException:
            # The check itself failed (the database went away, a hasher broke): no wrong password was
            # given, so the attempt does not count. Taken back if the database still answers; the
            # original error is what the caller sees either way.
            with contextlib.suppress(DatabaseError):
                budget.give_back()
            raise
        if user is not None:
            budget.give_back()
        return user


def stored_name(typed: str) -> str:
    """The account name `typed` stands for: itself if an account has exactly that name, else the
    one whose name normalizes to the same key (at most one: sign-up claims make sure), else
    `typed` as it is (and Django's backend finds nobody)."""
    users = get_user_model().objects
    if users.filter(username=typed).exists():
        return typed
    key = keys.normalize("username", typed)
    spellings = {typed.strip(), unicodedata.normalize("NFKC", typed.strip())}
    near = Q()
    for spelling in spellings:
        near |= Q(username__iexact=spelling)
    for name in users.filter(near).values_list("username", flat=True):
        if keys.normalize("username", name) == key:
            return str(name)
    return typed
