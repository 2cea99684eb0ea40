"""The API end to end through HTTP: sign up, token, a cart's whole life, time travel."""

import pytest
from rest_framework.test import APIClient

from eventlog.models import Event
from tests.e2e.api_helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.django_db(transaction=True)
def test_a_shopper_signs_up_fills_a_cart_checks_out_and_travels_back(catalog: None, claim_consumers: None) -> None:
    anonymous = APIClient()
    assert (
        anonymous.post(
            "/api/accounts", {"username": "Alice", "password": "correct horse battery"}, format="json"
        ).status_code
        == 201
    )
    token = anonymous.post("/api/auth/token", {"username": "Alice", "password": "correct horse battery"}, format="json")
    assert token.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")

    started = client.post("/api/carts")
    assert started.status_code == 201
    cart_id = started.json()["id"]
    assert started["Location"] == f"/api/carts/{cart_id}"
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 1}, format="json")
    client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": 3}, format="json")
    removed = client.delete(f"/api/carts/{cart_id}/items/KIT-001")
    assert removed.json()["items"] == [
        {"sku": "COF-001", "name": "Beans", "quantity": 3, "unit_price": "12.50", "line_total": "37.50"}
    ]
    assert removed["ETag"] == '"5"'

    order = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json")
    assert order.status_code == 200
    assert (order.json()["total"], order.json()["cart"]["status"]) == ("37.50", "checked_out")

    cart = client.get(f"/api/carts/{cart_id}").json()
    assert (cart["status"], cart["version"], cart["order_id"]) == ("checked_out", 6, order.json()["order_id"])
    events = client.get(f"/api/carts/{cart_id}/events").json()
    assert [e["type"] for e in events] == [
        "CartStarted", "ItemAdded", "ItemAdded", "ItemQuantityChanged", "ItemRemoved", "CheckedOut",
    ]  # fmt: skip
    assert [e["version"] for e in events] == [1, 2, 3, 4, 5, 6]
    past = client.get(f"/api/carts/{cart_id}?at_version=3").json()
    assert (past["status"], past["version"], [i["quantity"] for i in past["items"]]) == ("open", 3, [2, 1])


def test_a_multi_use_coupon_discounts_the_order(catalog: None) -> None:
    client = client_for("bob")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 2}, format="json")
    order = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "welcome10"}, format="json").json()
    assert (order["subtotal"], order["discount"], order["total"], order["coupon"]) == (
        "48.00",
        "4.80",
        "43.20",
        "WELCOME10",
    )
    checked_out = Event.objects.get(stream_id=f"cart-{cart_id}", type="CheckedOut").data
    assert (checked_out["coupon"], checked_out["discount"]) == ("WELCOME10", "4.80")


def test_if_match_with_the_current_version_succeeds_and_a_stale_one_gets_412(catalog: None) -> None:
    client = client_for("carol")
    started = client.post("/api/carts")
    cart_id = started.json()["id"]
    ok = client.post(
        f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json", HTTP_IF_MATCH=started["ETag"]
    )
    assert ok.status_code == 200
    stale = client.post(
        f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json", HTTP_IF_MATCH=started["ETag"]
    )
    assert stale.status_code == 412
    assert client.get(f"/api/carts/{cart_id}").json()["items"][0]["quantity"] == 1


def test_repeating_an_idempotency_key_returns_the_first_outcome_and_appends_nothing(catalog: None) -> None:
    client = client_for("dave")
    cart_id = client.post("/api/carts").json()["id"]
    first = client.post(
        f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    count = Event.objects.count()
    again = client.post(
        f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Event.objects.count() == count
    other = client.post(
        f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 1}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert other.status_code == 422
    assert Event.objects.count() == count


def test_products_carry_also_bought_and_can_be_searched(listed_catalog: None) -> None:
    products = APIClient().get("/api/products?q=bean").json()
    assert [p["sku"] for p in products] == ["COF-001"]
    assert products[0]["also_bought"] == []
    assert APIClient().get("/api/products/COF-001").json()["price"] == "12.50"


def test_the_catalog_lists_what_is_on_sale_by_category_and_one_sku_even_if_withdrawn(catalog: None) -> None:
    anonymous = APIClient()
    assert [p["sku"] for p in anonymous.get("/api/products").json()] == ["COF-001", "KIT-001"]
    assert [p["sku"] for p in anonymous.get("/api/products?category=Kitchen").json()] == ["KIT-001"]
    assert anonymous.get("/api/products?q=nothing-like-this").json() == []
    assert anonymous.get("/api/products/OLD-001").json()["active"] is False
