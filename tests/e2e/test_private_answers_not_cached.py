"""Answers for a signed-in person are kept out of every cache (docs/security.md): the token a log-in
returns, their orders with the shipping details through the API, the shop's pages of a signed-in
shopper. They carried no Cache-Control at all, so the browser kept them on disk and in its
back/forward cache, where a shared computer showed them after a log-out. Anonymous answers (the
catalog) are left cacheable, as they were."""

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from tests.e2e.api_helpers import client_for

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase"


def no_store(response: Any) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= directives


def test_the_token_a_log_in_returns_is_not_stored_by_any_cache() -> None:
    get_user_model().objects.create_user(username="ada", password=PASSWORD)
    response = APIClient().post("/api/auth/token", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"


def test_a_token_holders_answers_are_private_and_not_stored(catalog: None) -> None:
    client = client_for("ada")
    for path in ("/api/orders", "/api/carts/no-such-cart"):
        assert no_store(client.get(path)), path
    assert no_store(client.post("/api/carts"))


def test_a_signed_in_shoppers_pages_are_private_and_not_stored_and_a_visitors_are_left_alone(catalog: None) -> None:
    visitor = Client()
    for path in ("/", "/login/", "/cart/"):
        assert "Cache-Control" not in visitor.get(path), path
    assert "Cache-Control" not in APIClient().get("/api/products")

    get_user_model().objects.create_user(username="ada", password=PASSWORD)
    shopper = Client()
    assert shopper.login(username="ada", password=PASSWORD)
    for path in ("/", "/orders/", "/account/", "/cart/"):
        response = shopper.get(path)
        assert response.status_code == 200, path
        assert no_store(response), path
