"""Claims are idempotent per claimant and key: a checkout retried after a 503 reuses its
cart's own claim and gets the discount (never "already used"), in the library and over HTTP."""

import threading
from collections import Counter

import pytest
from rest_framework.test import APIClient

from carts.checkout import CouponPendingError, place_order
from carts.handler import load
from claims import projection
from claims import services as claims
from eventlog.models import Event
from tests.claim_helpers import claim_consumers_running
from tests.integration.test_claims_coupons import shopper_with_a_cart

pytestmark = [pytest.mark.django_db(transaction=True)]
STREAM = "claim-coupon-ONCE20"


def claim_events() -> Counter[str]:
    return Counter(Event.objects.filter(stream_id=STREAM).values_list("type", flat=True))


@pytest.mark.parametrize("transport", ["table", pytest.param("kafka", marks=pytest.mark.kafka)])
def test_a_checkout_retried_after_a_503_reuses_its_claim_and_gets_the_discount(
    catalog: None, settings, transport: str, request
) -> None:
    if transport == "kafka":
        request.getfixturevalue("kafka")
    context, cart_id = shopper_with_a_cart("retrier")
    settings.CLAIM_WAIT_SECONDS = 0.1
    with pytest.raises(CouponPendingError):  # the validator is stopped
        place_order(context, cart_id, "ONCE20")
    with pytest.raises(CouponPendingError):  # an impatient second try files nothing new
        place_order(context, cart_id, "once20")
    assert claim_events() == {"ClaimRequested": 1}
    settings.CLAIM_WAIT_SECONDS = 15
    with claim_consumers_running(transport=transport):
        order = place_order(context, cart_id, "ONCE20")
    state = load(cart_id)
    assert (state.status, order.state.coupon, str(order.state.discount)) == ("checked_out", "ONCE20", "9.60")
    assert claim_events() == {"ClaimRequested": 1, "ClaimAccepted": 1, "ClaimUsed": 1}
    (claim_id,) = {e.data["claim_id"] for e in Event.objects.filter(stream_id=STREAM)}
    assert projection.holder(STREAM) == claim_id
    assert claims.find(claim_id).claimant == f"cart:{cart_id}"  # type: ignore[union-attr]


def test_the_same_checkout_retried_over_http_answers_503_then_the_order_with_its_discount(
    catalog: None, settings
) -> None:
    from django.contrib.auth import get_user_model

    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("api-retrier", password="a-long-passphrase"))
    cart_id = client.post("/api/carts", {}, format="json").json()["id"]
    added = client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 2}, format="json")
    assert added.status_code < 300
    settings.CLAIM_WAIT_SECONDS = 0.1
    pending = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "ONCE20"}, format="json")
    assert pending.status_code == 503 and pending["Retry-After"]
    assert pending.json()["title"] == "Coupon check pending"
    settings.CLAIM_WAIT_SECONDS = 15
    with claim_consumers_running():
        retried = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": "ONCE20"}, format="json")
    assert retried.status_code == 200, retried.content
    assert (retried.json()["coupon"], retried.json()["discount"]) == ("ONCE20", "9.60")
    assert claim_events() == {"ClaimRequested": 1, "ClaimAccepted": 1, "ClaimUsed": 1}


def test_concurrent_requests_of_one_claimant_file_one_claim() -> None:
    tickets: list[str] = []
    barrier = threading.Barrier(6)

    def ask() -> None:
        from django.db import connection

        barrier.wait()
        try:
            tickets.append(claims.request("coupon", "ONCE20", claimant="cart:same").claim_id)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tickets) == 6 and len(set(tickets)) == 1
    assert claim_events() == {"ClaimRequested": 1}
    assert claims.find(tickets[0]).status == "pending"  # type: ignore[union-attr]  # findable before any validator
    assert claims.request("coupon", "ONCE20", claimant="cart:other").claim_id != tickets[0]


def test_a_claimant_whose_claim_was_released_or_rejected_files_a_new_one() -> None:
    first = claims.request("coupon", "ONCE20", claimant="cart:a")
    claims.release(first, "withdrawn", actor="test")
    assert not claims.release(first, "withdrawn again", actor="test")  # a release is appended once
    second = claims.request("coupon", "ONCE20", claimant="cart:a")
    assert second.claim_id != first.claim_id
    assert claim_events() == {"ClaimRequested": 2, "ClaimReleased": 1}
