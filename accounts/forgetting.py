"""Forget me: an account asks to be forgotten (`DELETE /api/accounts/me`, the shop's account page).

The person's data keys are destroyed and `PersonForgotten` appended (privacy/),
the account is deactivated (it can no longer log in; its sessions stop
authenticating), its password hash is replaced by an unusable one (a closed
account has no use for it, and a kept hash of a reused password can be cracked
from a leaked table) and every API token of it is revoked, all in one transaction.
The username stays claimed: nobody else can take the name (docs/personal-data.md).
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken

from eventlog.records import RecordedEvent
from privacy.forgetting import forget

from .authentication import TOKENS
from .services import principal


def forget_account(user: AbstractBaseUser) -> RecordedEvent:
    person = str(principal(user))
    with transaction.atomic():
        forgotten = forget(person, actor=person, at=timezone.now())
        get_user_model().objects.filter(pk=user.pk).update(is_active=False, password=make_password(None))
        AuthToken.objects.filter(user=user).delete()
    TOKENS.clear()  # this process at once; the others when migration 0003's NOTIFY arrives
    return forgotten
