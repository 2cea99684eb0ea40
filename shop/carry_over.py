"""Signing in keeps the cart: an anonymous visitor's cart moves to the account.

The move is a command on the cart's own stream (ChangeCartOwner -> CartOwnerChanged),
sent by the anonymous owner, so the history shows who held the cart and when, and
no line is copied or lost. If the account already has an open cart, the one just
filled stays the current cart (it is what the shopper is looking at); the older
one stays open under the account and the cart page offers to switch to it.
"""

import logging

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest

from accounts.services import principal
from carts import services
from carts.handler import Context

from . import current
from .sending import Refusal, attempt

log = logging.getLogger(__name__)


def sign_in(request: HttpRequest, user: AbstractBaseUser) -> str | None:
    """Log the user in and carry their anonymous cart over; the moved cart's id, if any.

    Only a visitor's cart is carried: someone already signed in who logs in as another account
    keeps their cart on their own account (it is theirs, not the visitor's to give)."""
    anonymous = None if request.user.is_authenticated else current.current_cart(request)
    anonymous_owner = current.anonymous_actor(request) if anonymous else None
    login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])  # type: ignore[arg-type]
    if anonymous is None or anonymous_owner is None or not anonymous.lines:
        current.forget_cart(request)
        return None
    moved = attempt(lambda: services.change_owner(Context(actor=anonymous_owner), anonymous.cart_id, principal(user)))
    if isinstance(moved, Refusal):
        # Logging in must not fail over the cart; the cart stays where it was.
        log.warning("cart %s not carried over: %s", anonymous.cart_id, moved.message)
        current.forget_cart(request)
        return None
    current.remember_cart(request, anonymous.cart_id)
    return anonymous.cart_id
