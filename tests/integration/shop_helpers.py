"""Helpers for the shop's test-client tests: fill a cart, read it back, sign up."""

from django.contrib.auth import get_user_model
from django.test import Client

from projections.models import CartView
from shop.current import CART_ID
from tests.claim_helpers import claim_consumers_running


def add(client: Client, sku: str, quantity: int = 1) -> None:
    response = client.post(f"/products/{sku}/add/", {"quantity": quantity})
    assert response.status_code == 302, response.content.decode()[:2000]


def cart_row(client: Client) -> CartView:
    return CartView.objects.get(cart_id=client.session[CART_ID])


def line_form(row: CartView, **extra: object) -> dict[str, object]:
    return {"cart_id": row.cart_id, "version": row.version, **extra}


PASSWORD = "a-long-secret-9"


def sign_up(client: Client, username: str = "ada") -> None:
    """Sign up through the form; needs the claim consumers running (a transactional test)."""
    with claim_consumers_running():
        response = client.post("/signup/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert not response["Location"].startswith("/signup/pending/"), "sign-up still pending"


def log_in_new_user(client: Client, username: str = "ada") -> None:
    """An existing account (made directly) logging in through the form."""
    get_user_model().objects.create_user(username=username, password=PASSWORD)
    log_in(client, username)


def log_in(client: Client, username: str) -> None:
    response = client.post("/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:2000]
