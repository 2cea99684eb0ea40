"""Read your writes over the API: every command says its log position, and the async
views (`/api/orders`, `/api/analytics/*`, `/api/projections`) wait for `min_position`."""

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from analytics.models import Summary
from catalog import services as catalog_services
from eventlog import store
from tests.claim_helpers import claim_consumers_running, eventually
from tests.e2e.api_helpers import assert_problem, client_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("catalog")]
TRANSPORTS = ["table", pytest.param("kafka", marks=[pytest.mark.kafka, pytest.mark.slow])]


@pytest.fixture(autouse=True)
def short_wait(settings: Any) -> None:
    settings.MIN_POSITION_WAIT_SECONDS = 0.3


def position_of(response: Any) -> int:
    assert response.status_code in (200, 201), response.content
    header = int(response["Cartlog-Position"])
    assert response.json()["position"] == header
    return header


def placed_order(client: APIClient, *skus: str) -> tuple[str, int]:
    """A cart with `skus`, checked out: (order id, the checkout's position)."""
    cart_id = client.post("/api/carts").json()["id"]
    for sku in skus:
        client.post(f"/api/carts/{cart_id}/items", {"sku": sku, "quantity": 1}, format="json")
    response = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json")
    return response.json()["order_id"], position_of(response)


def test_every_command_answers_with_the_position_of_its_last_event() -> None:
    client = client_for("ada")
    started = client.post("/api/carts")
    cart_id = started.json()["id"]
    positions = [position_of(started)]
    positions.append(position_of(client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2},
                                             format="json")))  # fmt: skip
    positions.append(position_of(client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": 3}, format="json")))
    client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 1}, format="json")
    positions.append(position_of(client.delete(f"/api/carts/{cart_id}/items/KIT-001")))
    positions.append(position_of(client.post(f"/api/carts/{cart_id}/checkout", {}, format="json")))
    events = client.get(f"/api/carts/{cart_id}/events").json()
    by_version = {e["version"]: e["position"] for e in events}
    assert positions == [by_version[1], by_version[2], by_version[3], by_version[5], by_version[6]]
    assert positions[-1] == store.head_position()


def test_an_idempotent_repeat_answers_with_the_original_position() -> None:
    client = client_for("ada")
    cart_id = client.post("/api/carts").json()["id"]
    body = {"sku": "COF-001", "quantity": 1}
    first = position_of(client.post(f"/api/carts/{cart_id}/items", body, format="json", HTTP_IDEMPOTENCY_KEY="k1"))
    client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 1}, format="json")
    head = store.head_position()
    again = client.post(f"/api/carts/{cart_id}/items", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert position_of(again) == first < head == store.head_position()
    order = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json", HTTP_IDEMPOTENCY_KEY="pay")
    repeat = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json", HTTP_IDEMPOTENCY_KEY="pay")
    assert position_of(repeat) == position_of(order) and repeat.json()["order_id"] == order.json()["order_id"]


def test_orders_not_yet_covered_answer_503_with_the_position_the_view_covers() -> None:
    client = client_for("ada")
    _, position = placed_order(client, "COF-001")
    assert client.get("/api/orders").json()["results"] == []  # no consumer ran: the view is behind
    for response in (client.get("/api/orders", {"min_position": position}),
                     client.get("/api/orders", HTTP_CARTLOG_MIN_POSITION=str(position))):  # fmt: skip
        body = assert_problem(response, 503)
        assert body["covers_position"] == 0 and body["min_position"] == position and body["view"] == "order_history"
        assert response["Retry-After"] == "1" and response["Cartlog-Position"] == "0"
    assert_problem(client.get("/api/orders", {"min_position": "soon"}), 400)
    assert_problem(APIClient().get("/api/orders"), 401)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_orders_with_min_position_always_list_the_order_just_placed(
    transport: str, request: Any, settings: Any
) -> None:
    settings.MIN_POSITION_WAIT_SECONDS = 10  # a loaded CI machine; the shop's default is 3
    if transport == "kafka":
        request.getfixturevalue("kafka")
    client, other = client_for("ada"), client_for("bob")
    with claim_consumers_running(with_projections=True, transport=transport):
        first, position = placed_order(client, "COF-001")
        # Once the consumers are under way (a Kafka group takes a moment to join), every read waits for its write.
        eventually(lambda: client.get("/api/orders", {"min_position": position}).status_code == 200, timeout=60)
        placed_order(other, "KIT-001")
        for _ in range(3):
            order_id, position = placed_order(client, "COF-001", "KIT-001")
            response = client.get("/api/orders", {"min_position": position})
            assert response.status_code == 200, response.content
            assert int(response["Cartlog-Position"]) >= position
            assert response.json()["results"][0]["order_id"] == order_id
    rows = client.get("/api/orders").json()["results"]
    assert len(rows) == 4 and rows[-1]["order_id"] == first  # newest first, only the caller's
    assert rows[0]["lines"][0] == {
        "sku": "COF-001", "name": "Beans", "quantity": 1, "unit_price": "12.50",
        "line_total": "12.50",
    }  # fmt: skip
    assert rows[0]["total"] == "36.50" and rows[0]["coupon"] is None and rows[0]["checked_out_at"]


def test_orders_are_paginated_by_cursor_newest_first() -> None:
    client = client_for("ada")
    placed = [placed_order(client, "COF-001")[0] for _ in range(3)]
    with claim_consumers_running(with_projections=True):
        eventually(
            lambda: client.get("/api/orders", {"min_position": store.head_position()}).status_code == 200, timeout=60
        )
    page = client.get("/api/orders", {"page_size": 2}).json()
    assert [o["order_id"] for o in page["results"]] == placed[:0:-1] and page["next"]
    rest = client.get(page["next"]).json()
    assert [o["order_id"] for o in rest["results"]] == placed[:1] and rest["next"] is None


@pytest.mark.usefixtures("listed_catalog")  # on the log, so the product can be renamed
def test_an_orders_lines_are_named_as_the_catalog_names_them_now() -> None:
    """The checkout's answer names each line; the order list names them the same way, by the
    catalog's current names (the CheckedOut event keeps the price sold at, not the name)."""
    client = client_for("ada")
    placed_order(client, "COF-001", "KIT-001")
    with claim_consumers_running(with_projections=True):
        eventually(
            lambda: client.get("/api/orders", {"min_position": store.head_position()}).status_code == 200, timeout=60
        )
    names = [(line["sku"], line["name"]) for line in client.get("/api/orders").json()["results"][0]["lines"]]
    assert names == [("COF-001", "Beans"), ("KIT-001", "Dripper")]
    catalog_services.edit_product("COF-001", name="Yirgacheffe, whole beans, 250 g", actor="staff:test")
    names = [(line["sku"], line["name"]) for line in client.get("/api/orders").json()["results"][0]["lines"]]
    assert names == [("COF-001", "Yirgacheffe, whole beans, 250 g"), ("KIT-001", "Dripper")]


@pytest.mark.parametrize(
    "cursor",
    [
        "cD1hYmM=",  # base64 of p=abc: DRF took the position as it was, and the query failed (a 500)
        "cD0xLjU=",  # p=1.5
        "cD3Zow==",  # p=٣, a digit but not ASCII
        "garbage",  # not base64 at all: DRF's own refusal was a 404
    ],
)
def test_a_cursor_this_endpoint_did_not_give_is_a_400_naming_it(cursor: str) -> None:
    client = client_for("ada")
    body = assert_problem(client.get("/api/orders", {"cursor": cursor}), 400)
    assert "cursor" in body["errors"]


@pytest.mark.parametrize("page_size", ["0", "-1", "abc", "2.5", "٣", ""])
def test_a_page_size_that_is_no_whole_number_from_1_is_a_400_naming_it(page_size: str) -> None:
    # DRF answered these with a page of 20 and copied the value into the `next` link.
    client = client_for("ada")
    body = assert_problem(client.get("/api/orders", {"page_size": page_size}), 400)
    assert body["errors"] == {"page_size": ["page_size must be a whole number from 1 to 100."]}


def test_a_page_size_above_100_is_not_refused() -> None:
    client = client_for("ada")
    response = client.get("/api/orders", {"page_size": "500"})
    assert response.status_code == 200 and response.json()["results"] == []


def test_analytics_cover_the_last_spark_run() -> None:
    client = client_for("ada")
    response = client.get("/api/analytics/summary", {"min_position": 0})
    assert response.status_code == 200 and response["Cartlog-Position"] == "0"
    body = assert_problem(client.get("/api/analytics/summary", {"min_position": 5}), 503)
    assert body["covers_position"] == 0 and body["view"] == "analytics"
    Summary.objects.create(
        computed_at=datetime.now(UTC), covers_position=7, carts_started=1, carts_with_items=1, carts_checked_out=1,
        conversion_rate=1.0, abandonment_rate=0.0, revenue=Decimal("1.00"), average_order_value=Decimal("1.00"),
    )  # fmt: skip
    response = client.get("/api/analytics/summary", HTTP_CARTLOG_MIN_POSITION="7")
    assert response.status_code == 200 and response["Cartlog-Position"] == "7"
    assert client.get("/api/analytics/recommendations")["Cartlog-Position"] == "7"


def test_projections_cover_the_lowest_async_projection_position() -> None:
    admin = get_user_model().objects.create_user(username="ops", password="a-long-passphrase", is_staff=True)
    client = APIClient()
    client.force_authenticate(admin)
    _, position = placed_order(client_for("ada"), "COF-001")
    assert client.get("/api/projections")["Cartlog-Position"] == "0"
    assert_problem(client.get("/api/projections", {"min_position": position}), 503)
    with claim_consumers_running(with_projections=True):
        eventually(lambda: client.get("/api/projections", {"min_position": position}).status_code == 200, timeout=60)
    assert int(client.get("/api/projections")["Cartlog-Position"]) >= position
