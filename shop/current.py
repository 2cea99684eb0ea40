"""Who is shopping and which cart is theirs: the actor string that owns carts
(`user:<id>` or `anon:<token kept in the session>`) and the current open cart.

The session keeps only ids; the cart's state always comes from the log or its
projection, so two tabs never disagree about what is in the cart.
"""

import secrets

from django.http import HttpRequest

from accounts.services import principal
from carts.decider import CartStatus
from kernel.principal import Principal
from projections.models import CartView

ANON_TOKEN = "shop_anon_token"
CART_ID = "shop_cart_id"


def actor(request: HttpRequest) -> Principal:
    if request.user.is_authenticated:
        return principal(request.user)
    return anonymous_actor(request)


def anonymous_actor(request: HttpRequest) -> Principal:
    token = request.session.get(ANON_TOKEN)
    if not token:
        token = secrets.token_urlsafe(18)
        request.session[ANON_TOKEN] = token
    return Principal.visitor(token)


def _known_actor(request: HttpRequest) -> Principal | None:
    """The actor without minting a token: merely looking at a page sets no cookie."""
    if request.user.is_authenticated:
        return principal(request.user)
    token = request.session.get(ANON_TOKEN)
    return Principal.visitor(token) if token else None


def current_cart(request: HttpRequest) -> CartView | None:
    """The open cart this visitor is filling, if any (projection row, read-your-writes)."""
    owner = _known_actor(request)
    if owner is None:
        return None
    cart_id = request.session.get(CART_ID)
    if cart_id:
        row = CartView.objects.filter(cart_id=cart_id, owner=str(owner), status=CartStatus.OPEN).first()
        if row is not None:
            return row
    if request.user.is_authenticated:
        row = CartView.objects.filter(owner=str(owner), status=CartStatus.OPEN).order_by("-updated_at").first()
        if row is not None:
            request.session[CART_ID] = row.cart_id
            return row
    return None


def remember_cart(request: HttpRequest, cart_id: str) -> None:
    request.session[CART_ID] = cart_id


def forget_cart(request: HttpRequest) -> None:
    request.session.pop(CART_ID, None)
