"""Two edges of the shop's log-in: where it sends you after, and whose cart comes with you."""

import logging

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from projections.models import CartView
from tests.integration.shop_helpers import PASSWORD, add, cart_row, log_in, log_in_new_user

pytestmark = pytest.mark.usefixtures("catalog")


def test_on_https_a_next_address_of_plain_http_is_not_followed_after_logging_in(client: Client) -> None:
    """Same host, but http: following it would leave TLS right after the password was sent."""
    log_in_new_user(client, "ada")
    client.logout()
    response = client.post(
        "/login/?next=http://testserver/orders/", {"username": "ada", "password": PASSWORD}, secure=True
    )
    assert (response.status_code, response["Location"]) == (302, "/")
    followed = client.post("/login/?next=/orders/", {"username": "ada", "password": PASSWORD}, secure=True)
    assert followed["Location"] == "/orders/"  # a path on the same site still is


def test_logging_in_as_another_account_while_signed_in_leaves_the_first_accounts_cart_alone(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """It was taken for a visitor's cart to carry over: a change of owner was tried with a visitor's
    name (refused by the cart, with a warning in the log)."""
    log_in_new_user(client, "ada")
    add(client, "COF-001")
    adas_cart = cart_row(client).cart_id
    log_in_new_user(Client(), "bob")
    with caplog.at_level(logging.WARNING, logger="shop"):
        log_in(client, "bob")
    assert [r.getMessage() for r in caplog.records if "not carried over" in r.getMessage()] == []
    ada = get_user_model().objects.get(username="ada")
    assert CartView.objects.get(cart_id=adas_cart).owner == f"user:{ada.pk}"
