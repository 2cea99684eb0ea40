"""Input no view can use is refused up front with 400 naming the field, never a 500
(api/input_guard.py, api/carts.py); unknown /api/ routes are 404 for every method."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem, client_for, log_snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def shopper(catalog: None) -> tuple[APIClient, str]:
    client = client_for("ines")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    return client, cart_id


def field_errors(response: Any, status: int = 400) -> dict[str, Any]:
    return dict(assert_problem(response, status).get("errors", {}))


@pytest.mark.parametrize(
    ("method", "path", "field"),
    [
        ("get", "/api/carts/{cart}%00", "cart_id"),
        ("get", "/api/carts/{cart}/events%00x", None),  # no route: a 404, still no 500
        ("delete", "/api/carts/{cart}/items/COF%00-001", "sku"),
        ("put", "/api/carts/{cart}/items/COF%00-001", "sku"),
        ("get", "/api/products/COF%00", "sku"),
        ("get", "/api/claims/abc%00", "claim_id"),
        ("get", "/api/carts/{cart}?at_version=1%00", "at_version"),
        ("get", "/api/products?q=be%00ans", "q"),
        ("get", "/api/products?category=%00", "category"),
        ("get", "/api/analytics/recommendations?sku=%00", "sku"),
    ],
)
def test_a_nul_byte_in_a_path_or_query_value_is_a_400_naming_the_field(
    shopper: tuple[APIClient, str], method: str, path: str, field: str | None
) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    response = getattr(client, method)(path.format(cart=cart_id), {"quantity": 2} if method == "put" else None)
    if field is None:
        assert_problem(response, 404)
    else:
        assert field in field_errors(response), response.json()
    assert log_snapshot() == before


@pytest.mark.parametrize(
    ("path", "field", "limit"),
    [("/api/carts/{long}", "cart_id", 200), ("/api/products?q={long}", "q", 500)],
)
def test_an_over_long_path_or_query_value_is_a_400(
    shopper: tuple[APIClient, str], path: str, field: str, limit: int
) -> None:
    client, _ = shopper
    body = field_errors(client.get(path.format(long="x" * (limit + 1))))
    assert f"at most {limit}" in body[field][0]


@pytest.mark.parametrize("header", ["If-Match", "Idempotency-Key", "X-Correlation-ID"])
@pytest.mark.parametrize("value", ["a\x00b", "x" * 201])
def test_a_nul_byte_or_an_over_long_header_is_a_400_naming_the_header(
    shopper: tuple[APIClient, str], header: str, value: str
) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    body = {"sku": "COF-001", "quantity": 1}
    response = client.post(f"/api/carts/{cart_id}/items", body, format="json", headers={header: value})
    assert header in field_errors(response)
    assert log_snapshot() == before


@pytest.mark.parametrize("value", ['"²"', '"\u0661"', "²", '"1²"', '"' + "9" * 40 + '"'])
def test_if_match_with_non_ascii_or_too_many_digits_is_a_400_naming_it(
    shopper: tuple[APIClient, str], value: str
) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    response = client.delete(f"/api/carts/{cart_id}/items/COF-001", HTTP_IF_MATCH=value)
    assert "If-Match" in field_errors(response)
    assert log_snapshot() == before


@pytest.mark.parametrize("value", ["²", "\u0661", "1²", "9" * 40])
def test_at_version_with_non_ascii_digits_is_a_400_naming_it(shopper: tuple[APIClient, str], value: str) -> None:
    client, cart_id = shopper
    assert "at_version" in field_errors(client.get(f"/api/carts/{cart_id}", {"at_version": value}))


def test_an_authorization_header_that_is_no_plausible_token_is_a_401_problem(catalog: None) -> None:
    for value in ["Token abc\x00def", "Token " + "x" * 300, "Token ¹²³"]:
        response = APIClient().post("/api/carts", HTTP_AUTHORIZATION=value)
        assert_problem(response, 401)


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete", "head", "options"])
@pytest.mark.parametrize("path", ["/api/nope", "/api/carts/x/nope/y", "/api/"])
def test_an_unknown_api_route_is_a_404_problem_for_every_method(method: str, path: str) -> None:
    client = APIClient(enforce_csrf_checks=True)
    response = getattr(client, method)(path, {"a": 1}, format="json") if method != "head" else client.head(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
    if method != "head":
        assert response.json()["status"] == 404
