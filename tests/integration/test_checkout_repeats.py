"""A checkout sent twice is answered twice with the first one's order (invariant 5, idempotency).

Through the API that is a retry with the same Idempotency-Key (after a timeout, say); in the
shop, "Place order" clicked twice, or the form sent again from the browser's history. Each
repeat gets the order the first placed and appends nothing. A one-time coupon's checkout checks
the cart before it claims the coupon, and that check used to answer a repeat "already checked
out" (409) instead of replaying it.
"""

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from eventlog.models import Event
from tests.e2e.api_helpers import assert_problem, client_for

pytestmark = [pytest.mark.django_db(transaction=True)]


def cart_with_beans(client: APIClient) -> str:
    cart_id = str(client.post("/api/carts").json()["id"])
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    return cart_id


def log_types(cart_id: str) -> list[str]:
    return list(Event.objects.filter(stream_id=f"cart-{cart_id}").order_by("version").values_list("type", flat=True))


@pytest.mark.parametrize("coupon", ["ONCE20", "WELCOME10", None], ids=["one-time", "multi-use", "no-coupon"])
@pytest.mark.parametrize("pinned", [False, True], ids=["no-if-match", "if-match"])
def test_a_checkout_retried_with_its_idempotency_key_answers_the_first_order(
    catalog: None, claim_consumers: None, coupon: str | None, pinned: bool
) -> None:
    client = client_for("dana")
    cart_id = cart_with_beans(client)
    body = {"coupon": coupon} if coupon else {}
    headers: Any = {"HTTP_IDEMPOTENCY_KEY": "checkout-1", **({"HTTP_IF_MATCH": '"2"'} if pinned else {})}
    first = client.post(f"/api/carts/{cart_id}/checkout", body, format="json", **headers)
    again = client.post(f"/api/carts/{cart_id}/checkout", body, format="json", **headers)

    assert first.status_code == 200, first.content
    assert again.status_code == 200, again.content
    expected_total = {"ONCE20": "20.00", "WELCOME10": "22.50", None: "25.00"}[coupon]  # 2 x 12.50, less 20 % / 10 %
    assert (again.json()["order_id"], again.json()["total"]) == (first.json()["order_id"], expected_total)
    assert log_types(cart_id) == ["CartStarted", "ItemAdded", "CheckedOut"]
    if coupon == "ONCE20":  # the coupon was claimed and used once, by this order
        uses = Event.objects.filter(type="ClaimUsed", stream_id__startswith="claim-coupon-")
        assert [event.data["used_for"] for event in uses] == [f"order:{first.json()['order_id']}"]


def test_the_same_key_with_another_coupon_is_refused_not_replayed(catalog: None, claim_consumers: None) -> None:
    client = client_for("erin")
    cart_id = cart_with_beans(client)
    headers: Any = {"HTTP_IDEMPOTENCY_KEY": "checkout-2"}
    first = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "WELCOME10"}, format="json", **headers)
    assert first.status_code == 200

    other = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "ONCE20"}, format="json", **headers)

    assert_problem(other, 422)
    assert "already used for a different request" in other.json()["detail"]
    assert log_types(cart_id) == ["CartStarted", "ItemAdded", "CheckedOut"]
    assert not Event.objects.filter(stream_id__startswith="claim-coupon-").exists()  # ONCE20 was never claimed


@pytest.mark.parametrize("coupon", ["ONCE20", "WELCOME10"])
def test_a_repeat_after_its_coupon_was_deactivated_still_answers_the_first_order(
    catalog: None, claim_consumers: None, coupon: str
) -> None:
    from catalog.models import Coupon

    client = client_for("gail")
    cart_id = cart_with_beans(client)
    headers: Any = {"HTTP_IDEMPOTENCY_KEY": "checkout-3"}
    first = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": coupon}, format="json", **headers)
    assert first.status_code == 200
    Coupon.objects.filter(code=coupon).update(active=False)  # the staff end the offer

    again = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": coupon}, format="json", **headers)

    assert again.status_code == 200, again.content  # it was 400 "There is no active coupon"
    assert again.json()["order_id"] == first.json()["order_id"]
    assert log_types(cart_id) == ["CartStarted", "ItemAdded", "CheckedOut"]


@pytest.mark.parametrize("coupon", ["ONCE20", ""], ids=["one-time", "no-coupon"])
def test_place_order_sent_twice_from_the_shop_shows_the_order_both_times(
    catalog: None, claim_consumers: None, coupon: str
) -> None:
    user = get_user_model().objects.create_user(username="frank", password="a-long-passphrase")
    shopper = Client()
    shopper.force_login(user)
    shopper.post("/products/COF-001/add/", {"quantity": "2"})
    page = shopper.get("/checkout/").content.decode()
    form = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page))
    assert {"cart_id", "version", "request_id"} <= form.keys(), form
    form.update(coupon=coupon, ship_name="", ship_email="", ship_address="")

    first = shopper.post("/checkout/", form)
    again = shopper.post("/checkout/", form)  # a double click, or the form sent again from history

    order_page = f"/orders/{form['cart_id']}/"
    assert (first.status_code, first["Location"]) == (302, order_page)
    assert (again.status_code, again["Location"]) == (302, order_page)
    assert log_types(form["cart_id"]) == ["CartStarted", "ItemAdded", "CheckedOut"]
    # A new visit to the checkout page is a new request: it carries another key.
    shopper.post("/products/COF-001/add/", {"quantity": "1"})
    later = dict(
        re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', shopper.get("/checkout/").content.decode())
    )
    assert later["request_id"] != form["request_id"] and later["cart_id"] != form["cart_id"]
