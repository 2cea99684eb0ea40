"""Every refusal is a problem document with the right status, and leaves the log unchanged."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem, client_for, log_snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def shopper(catalog: None) -> tuple[APIClient, str]:
    client = client_for("erin")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    return client, cart_id


@pytest.mark.parametrize(
    "body",
    [
        {"sku": "COF-001", "quantity": "2"},
        {"sku": "COF-001", "quantity": 2.5},
        {"sku": "COF-001", "quantity": 2.0},
        {"sku": "COF-001", "quantity": True},
        {"sku": "COF-001", "quantity": None},
        {"sku": "COF-001", "quantity": -1},
        {"sku": "COF-001", "quantity": 0},
        {"sku": "COF-001", "quantity": 100},
        {"sku": "COF-001", "quantity": 10**30},
        {"sku": "COF-001"},
        {"quantity": 1},
        {"sku": "NOPE-1", "quantity": 1},
        {"sku": "OLD-001", "quantity": 1},
        [1, 2],
    ],
)
def test_bad_add_to_cart_input_is_400_and_appends_nothing(shopper: tuple[APIClient, str], body: Any) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    problem = assert_problem(client.post(f"/api/carts/{cart_id}/items", body, format="json"), 400)
    assert problem.get("errors") or problem["detail"]
    assert log_snapshot() == before


def test_malformed_json_is_a_400_problem(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    response = client.post(f"/api/carts/{cart_id}/items", "{not json", content_type="application/json")
    assert_problem(response, 400)
    assert log_snapshot() == before


@pytest.mark.parametrize("quantity", ["1", 1.5, -3, 100])
def test_bad_update_quantity_is_400_and_appends_nothing(shopper: tuple[APIClient, str], quantity: Any) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    assert_problem(client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": quantity}, format="json"), 400)
    assert log_snapshot() == before


def test_unknown_and_foreign_carts_are_the_same_404(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    stranger = client_for("mallory")
    before = log_snapshot()
    for response in (
        stranger.get(f"/api/carts/{cart_id}"),
        stranger.get(f"/api/carts/{cart_id}/events"),
        stranger.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json"),
        stranger.post(f"/api/carts/{cart_id}/checkout", {}, format="json"),
        client.get("/api/carts/00000000-0000-0000-0000-000000000000"),
        client.delete(f"/api/carts/{cart_id}/items/KIT-001"),
    ):
        assert_problem(response, 404)
    assert log_snapshot() == before


def test_commands_on_a_checked_out_cart_are_409(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    client.post(f"/api/carts/{cart_id}/checkout", {}, format="json")
    before = log_snapshot()
    assert_problem(client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json"), 409)
    assert_problem(client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": 2}, format="json"), 409)
    assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {}, format="json"), 409)
    assert log_snapshot() == before


def test_an_empty_checkout_is_409_and_an_unknown_coupon_400(catalog: None) -> None:
    client = client_for("frank")
    cart_id = client.post("/api/carts").json()["id"]
    before = log_snapshot()
    assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {}, format="json"), 409)
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    before = log_snapshot()
    assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "NOPE"}, format="json"), 400)
    assert log_snapshot() == before


def test_routes_methods_and_auth_errors_are_problem_documents(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    assert_problem(client.get("/api/no-such-thing"), 404)
    assert_problem(client.patch(f"/api/carts/{cart_id}", {}, format="json"), 405)
    assert_problem(APIClient().post("/api/carts"), 401)
    assert_problem(client.get(f"/api/carts/{cart_id}?at_version=99"), 400)
    assert_problem(
        client.post(
            f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json", HTTP_IF_MATCH="abc"
        ),
        400,
    )


@pytest.mark.django_db(transaction=True)
def test_sign_up_refusals(claim_consumers: None) -> None:
    anonymous = APIClient()
    assert (
        anonymous.post(
            "/api/accounts", {"username": "Grace", "password": "a-long-passphrase"}, format="json"
        ).status_code
        == 201
    )
    assert_problem(
        anonymous.post("/api/accounts", {"username": "GRACE", "password": "a-long-passphrase"}, format="json"), 409
    )
    assert_problem(
        anonymous.post("/api/accounts", {"username": "x", "password": "a-long-passphrase"}, format="json"), 400
    )
    assert_problem(anonymous.post("/api/accounts", {"username": "henry", "password": "123"}, format="json"), 400)
    assert_problem(anonymous.post("/api/auth/token", {"username": "Grace", "password": "wrong"}, format="json"), 400)
