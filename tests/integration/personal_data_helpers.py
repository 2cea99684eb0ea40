"""A shopper who checks out with shipping details through the API, for the personal-data tests."""

from typing import Any

from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.e2e.api_helpers import client_for

ADA = {"name": "Ada Quillfeather", "email": "ada.quill@example.org", "address": "7 Lantern Row, Cogsford"}
BOB = {"name": "Bob Marrowby", "email": "bob.marrow@example.net", "address": "3 Kiln Yard, Eastwick"}
PLAINTEXT = [*ADA.values(), "Quillfeather", "Lantern Row"]


def shopper(username: str) -> tuple[APIClient, str]:
    """A client with a token for a new account, and that account's principal text."""
    client = client_for(username)
    user = get_user_model().objects.get(username=username)
    return client, f"user:{user.pk}"


def check_out(client: APIClient, shipping: dict[str, str] | None, **headers: str) -> dict[str, Any]:
    cart_id = client.post("/api/carts").json()["id"]
    added = client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    assert added.status_code == 200
    body = {"shipping": shipping} if shipping else {}
    response = client.post(f"/api/carts/{cart_id}/checkout", body, format="json", headers=headers)
    assert response.status_code == 200, response.content
    return dict(response.json())


def as_forgotten(username: str) -> APIClient:
    """The account's own view of the API even though it can no longer log in: what would it see?"""
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username=username))
    return client
