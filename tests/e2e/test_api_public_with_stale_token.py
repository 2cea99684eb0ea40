"""What anyone may read answers a client that sends a stale token with it, as the login does
(api/accounts.py: TokenView). An SDK attaches its token to every call; once the token expired
or was revoked, the public catalog answered 401 "Invalid token." although docs/api.md says
it needs no authentication."""

import pytest
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

STALE = "Token 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("authorization", [STALE, "Token", "Bearer x"])
def test_the_catalog_and_claims_ignore_a_stale_or_foreign_token(authorization: str) -> None:
    client = APIClient(HTTP_AUTHORIZATION=authorization)
    products = client.get("/api/products")
    assert products.status_code == 200
    assert [p["sku"] for p in products.json()] == ["COF-001", "KIT-001"]
    assert client.get("/api/products/OLD-001").json()["active"] is False
    body = assert_problem(client.get("/api/claims/9306c3f0-7ce0-4592-b9da-9b0c1cbf80a4"), 404)
    assert body["title"] == "Claim not found"


def test_what_needs_an_account_still_refuses_a_stale_token() -> None:
    body = assert_problem(APIClient(HTTP_AUTHORIZATION=STALE).get("/api/orders"), 401)
    assert body["detail"] == "Invalid token."
