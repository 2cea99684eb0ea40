"""What every page's header needs: the number of items in the visitor's cart."""

import logging
from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest

from .current import current_cart

log = logging.getLogger(__name__)


def cart_summary(request: HttpRequest) -> dict[str, Any]:
    # Pages rendered outside the middleware stack (error handlers) may lack a session.
    if not hasattr(request, "session") or not hasattr(request, "user"):
        return {"cart_item_count": 0}
    try:
        cart = current_cart(request)
    except DatabaseError:
        # The 500 page renders through here too; a header count must not take it down.
        log.exception("cart count unavailable")
        return {"cart_item_count": 0}
    return {"cart_item_count": cart.item_count if cart else 0}
