"""What every page's header needs: the number of items in the visitor's cart, and the page its
Log in and Sign up links come back to."""

import logging
from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest

from .current import current_cart

log = logging.getLogger(__name__)


# The ways in: their header links pass on the page's own ?next=, not the way in itself.
ACCOUNT_PAGES = ("/login/", "/signup/", "/signup/pending/")


def back_after_login(request: HttpRequest) -> str:
    """Where logging in from this page's header leads: back here (accounts' _next_url keeps
    only this site's addresses). A page drawn for a POST (a form's errors) may not be one a GET
    can open again: the catalog then."""
    if request.path in ACCOUNT_PAGES:
        return request.POST.get("next") or request.GET.get("next") or "/"
    return request.get_full_path() if request.method == "GET" else "/"


def cart_summary(request: HttpRequest) -> dict[str, Any]:
    # Pages rendered outside the middleware stack (error handlers) may lack a session.
    if not hasattr(request, "session") or not hasattr(request, "user"):
        return {"cart_item_count": 0}
    return {**_cart_count(request), "back_after_login": back_after_login(request)}


def _cart_count(request: HttpRequest) -> dict[str, Any]:
    try:
        cart = current_cart(request)
    except DatabaseError:
        # The 500 page renders through here too; a header count must not take it down.
        log.exception("cart count unavailable")
        return {"cart_item_count": 0}
    return {"cart_item_count": cart.item_count if cart else 0}
