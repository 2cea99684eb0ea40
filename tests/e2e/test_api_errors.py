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
    assert problem["errors"] if isinstance(body, dict) else problem["detail"]  # field errors for every field
    assert log_snapshot() == before


def test_malformed_json_is_a_400_problem(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    response = client.post(f"/api/carts/{cart_id}/items", "{not json", content_type="application/json")
    assert_problem(response, 400)
    assert log_snapshot() == before


@pytest.mark.parametrize(
    "body",
    [{"quantity": "1"}, {"quantity": 1.5}, {"quantity": 1.0}, {"quantity": False}, {"quantity": None},
     {"quantity": -3}, {"quantity": 100}, {"quantity": 2**63}, {}, {"qty": 1}, "3"],
)  # fmt: skip
def test_bad_update_quantity_is_400_and_appends_nothing(shopper: tuple[APIClient, str], body: Any) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    problem = assert_problem(client.put(f"/api/carts/{cart_id}/items/COF-001", body, format="json"), 400)
    assert problem["errors"] if isinstance(body, dict) else problem["detail"]  # field errors for every field
    assert log_snapshot() == before


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/api/accounts"), ("post", "/api/auth/token"), ("post", "/items"), ("put", "/items/COF-001"),
     ("post", "/checkout")],
)  # fmt: skip
def test_malformed_json_anywhere_is_a_400_problem(shopper: tuple[APIClient, str], method: str, path: str) -> None:
    client, cart_id = shopper
    url = path if path.startswith("/api/") else f"/api/carts/{cart_id}{path}"
    before = log_snapshot()
    assert_problem(getattr(client, method)(url, '{"quantity": 1,', content_type="application/json"), 400)
    assert log_snapshot() == before


@pytest.mark.parametrize(
    ("body", "status"),
    [(b'{"sku": "COF-001", "quantity": NaN}', 400), (b'{"sku": "\xff", "quantity": 1}', 400),
     (b"[" * 100_000 + b"]" * 100_000, 400), (b'{"sku": "' + b"a" * 3_000_000 + b'", "quantity": 1}', 413)],
)  # fmt: skip
def test_hostile_bodies_are_refused_as_problems_not_crashes(
    shopper: tuple[APIClient, str], body: bytes, status: int
) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    url = f"/api/carts/{cart_id}/items"
    # Raw bytes on purpose (invalid UTF-8 included): Django sends them as they are; the stub only knows str.
    assert_problem(client.generic("POST", url, body, content_type="application/json"), status)  # type: ignore[arg-type]
    assert log_snapshot() == before


def test_a_form_body_is_415_and_a_string_sku_or_coupon_is_required(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    assert_problem(client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}), 415)
    refused = assert_problem(client.post(f"/api/carts/{cart_id}/items", {"sku": 1, "quantity": 1}, format="json"), 400)
    assert "sku" in refused["errors"]
    refused = assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {"coupon": 10}, format="json"), 400)
    assert "coupon" in refused["errors"]
    assert log_snapshot() == before


def test_changing_or_removing_an_item_that_is_not_in_the_cart_is_404(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    before = log_snapshot()
    assert_problem(client.put(f"/api/carts/{cart_id}/items/KIT-001", {"quantity": 2}, format="json"), 404)
    assert_problem(client.put(f"/api/carts/{cart_id}/items/NOPE-1", {"quantity": 0}, format="json"), 404)
    assert_problem(client.delete(f"/api/carts/{cart_id}/items/KIT-001"), 404)
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
        stranger.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": 5}, format="json"),
        stranger.delete(f"/api/carts/{cart_id}/items/COF-001"),
        stranger.get(f"/api/carts/{cart_id}?at_version=1"),
        client.get("/api/carts/00000000-0000-0000-0000-000000000000"),
        client.post(
            "/api/carts/00000000-0000-0000-0000-000000000000/items", {"sku": "COF-001", "quantity": 1}, format="json"
        ),
        client.get("/api/carts/not-a-uuid/events"),
    ):
        assert assert_problem(response, 404)["detail"] == "This cart does not exist."
    assert log_snapshot() == before


def test_commands_on_a_checked_out_cart_are_409(shopper: tuple[APIClient, str]) -> None:
    client, cart_id = shopper
    client.post(f"/api/carts/{cart_id}/checkout", {}, format="json")
    before = log_snapshot()
    assert_problem(client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json"), 409)
    assert_problem(client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": 2}, format="json"), 409)
    assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {}, format="json"), 409)
    assert_problem(client.delete(f"/api/carts/{cart_id}/items/COF-001"), 409)
    assert log_snapshot() == before


def test_an_empty_checkout_is_409_and_an_unknown_coupon_400(catalog: None) -> None:
    client = client_for("frank")
    cart_id = client.post("/api/carts").json()["id"]
    before = log_snapshot()
    assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {}, format="json"), 409)
    assert log_snapshot() == before
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    before = log_snapshot()
    refused = assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "NOPE"}, format="json"), 400)
    assert "coupon" in refused["errors"]
    assert log_snapshot() == before


def test_a_coupon_over_100_percent_saved_before_the_admin_refused_it_is_not_applied(catalog: None) -> None:
    from catalog.models import Coupon

    Coupon.objects.create(code="BIG150", percent=150)  # straight into the table: no form validates it
    client = client_for("frank")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    before = log_snapshot()
    refused = assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "big150"}, format="json"), 400)
    assert "coupon" in refused["errors"] and "150 %" in refused["detail"]
    assert log_snapshot() == before
    assert client.get(f"/api/carts/{cart_id}").json()["status"] == "open"


@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_api_route_is_a_404_problem_even_in_debug(settings: Any, debug: bool) -> None:
    settings.DEBUG = debug
    for path in ("/api/no-such-thing", "/api/carts/a/b/c/d", "/api/products/COF-001/"):
        assert "nothing at" in assert_problem(APIClient().get(path), 404)["detail"]


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


def test_a_sign_up_refused_for_its_username_and_its_password_names_both_at_once() -> None:
    before = log_snapshot()
    response = APIClient().post("/api/accounts", {"username": "no spaces!", "password": "1234"}, format="json")
    body = assert_problem(response, 400)
    assert body["errors"] == {
        "username": ["A username may hold letters, digits and @ . + - _ only."],
        "password": [
            "This password is too short. It must contain at least 8 characters.",
            "This password is too common.",
            "This password is entirely numeric.",
            "Your password must contain at least 8 characters that are not spaces.",
        ],
    }
    assert log_snapshot() == before


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


def test_a_crash_in_a_view_is_a_500_problem_that_reveals_nothing(
    shopper: tuple[APIClient, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, cart_id = shopper

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr("carts.services.remove_from_cart", crash)
    problem = assert_problem(client.delete(f"/api/carts/{cart_id}/items/COF-001"), 500)
    assert "secret" not in str(problem)


def test_a_crash_outside_drf_under_api_is_a_500_problem_and_elsewhere_a_page() -> None:
    from django.test import RequestFactory

    from api.problems import server_error

    api = server_error(RequestFactory().get("/api/carts"))
    assert (api.status_code, api["Content-Type"]) == (500, "application/problem+json")
    assert server_error(RequestFactory().get("/cart/")).status_code == 500


def test_a_session_post_without_its_csrf_token_is_a_403_problem(catalog: None) -> None:
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username="ivan", password="a-long-passphrase")
    browser = APIClient(enforce_csrf_checks=True)
    assert browser.login(username="ivan", password="a-long-passphrase")
    before = log_snapshot()
    assert "CSRF" in assert_problem(browser.post("/api/carts"), 403)["detail"]
    assert log_snapshot() == before
