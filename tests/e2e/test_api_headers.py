"""ETag, If-Match, Idempotency-Key, time travel and the event stream, through HTTP."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem, client_for, log_snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def cart(catalog: None) -> tuple[APIClient, str]:
    client = client_for("judy")
    return client, client.post("/api/carts").json()["id"]


def test_every_command_and_read_answers_with_the_cart_version_as_etag(cart: tuple[APIClient, str]) -> None:
    client, cart_id = cart
    url = f"/api/carts/{cart_id}"
    responses = [
        client.post(f"{url}/items", {"sku": "COF-001", "quantity": 1}, format="json"),
        client.post(f"{url}/items", {"sku": "KIT-001", "quantity": 1}, format="json"),
        client.put(f"{url}/items/COF-001", {"quantity": 4}, format="json"),
        client.delete(f"{url}/items/KIT-001"),
        client.get(url),
        client.post(f"{url}/checkout", {}, format="json"),
    ]
    assert [r["ETag"] for r in responses] == ['"2"', '"3"', '"4"', '"5"', '"5"', '"6"']
    assert client.get(f"{url}?at_version=2")["ETag"] == '"2"'


@pytest.mark.parametrize("if_match", ['"1"', "1", 'W/"1"', "*"])
def test_if_match_accepts_the_current_version_in_its_usual_spellings(
    cart: tuple[APIClient, str], if_match: str
) -> None:
    client, cart_id = cart
    added = client.post(
        f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json", HTTP_IF_MATCH=if_match
    )
    assert (added.status_code, added["ETag"]) == (200, '"2"')


@pytest.mark.parametrize("method", ["put", "delete", "checkout"])
def test_a_stale_if_match_is_412_for_every_command_and_appends_nothing(
    cart: tuple[APIClient, str], method: str
) -> None:
    client, cart_id = cart
    url = f"/api/carts/{cart_id}"
    client.post(f"{url}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    before = log_snapshot()
    stale: dict[str, Any] = {"HTTP_IF_MATCH": '"1"'}
    response = {
        "put": lambda: client.put(f"{url}/items/COF-001", {"quantity": 3}, format="json", **stale),
        "delete": lambda: client.delete(f"{url}/items/COF-001", **stale),
        "checkout": lambda: client.post(f"{url}/checkout", {}, format="json", **stale),
    }[method]()
    assert "version 2" in assert_problem(response, 412)["detail"]
    assert response["ETag"] == '"2"'  # the version to pin next, without a read
    assert log_snapshot() == before


def test_after_a_412_the_same_key_goes_through_with_its_etag_and_is_then_the_first_outcome(
    cart: tuple[APIClient, str],
) -> None:
    # A refused command records no key: the client pins what the 412 said and sends the same request again.
    client, cart_id = cart
    url = f"/api/carts/{cart_id}/items"
    client.post(url, {"sku": "COF-001", "quantity": 1}, format="json")  # another device: version 2
    key: dict[str, Any] = {"HTTP_IDEMPOTENCY_KEY": "add-kit"}
    stale = client.post(url, {"sku": "KIT-001", "quantity": 1}, format="json", HTTP_IF_MATCH='"1"', **key)
    assert_problem(stale, 412)

    added = client.post(url, {"sku": "KIT-001", "quantity": 1}, format="json", HTTP_IF_MATCH=stale["ETag"], **key)
    again = client.post(url, {"sku": "KIT-001", "quantity": 1}, format="json", HTTP_IF_MATCH='"1"', **key)

    assert (added.status_code, added["ETag"]) == (200, '"3"')
    assert (again.status_code, again["ETag"], again.json()) == (200, '"3"', added.json())  # a repeat, pinned or not
    other_cart = client.post("/api/carts").json()["id"]
    reused = client.post(f"/api/carts/{other_cart}/items", {"sku": "KIT-001", "quantity": 1}, format="json", **key)
    assert "different request" in assert_problem(reused, 422)["detail"]  # a key is the account's, not the cart's


@pytest.mark.parametrize("if_match", ['"1"', '"0"', "*"])
def test_starting_a_cart_reads_no_if_match(catalog: None, if_match: str) -> None:
    # A client that pins every command: a new cart has no version it could have read (it was a 412).
    started = client_for("kim").post("/api/carts", HTTP_IF_MATCH=if_match)
    assert (started.status_code, started["ETag"]) == (201, '"1"')


@pytest.mark.parametrize("headers", [{"HTTP_IF_MATCH": '"two"'}, {"HTTP_IDEMPOTENCY_KEY": "k" * 201}])
def test_malformed_command_headers_are_400_and_append_nothing(cart: tuple[APIClient, str], headers: Any) -> None:
    client, cart_id = cart
    before = log_snapshot()
    response = client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json", **headers)
    assert_problem(response, 400)
    assert log_snapshot() == before


def test_a_repeated_checkout_returns_the_same_order_and_appends_nothing(cart: tuple[APIClient, str]) -> None:
    client, cart_id = cart
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    first = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json", HTTP_IDEMPOTENCY_KEY="pay-1")
    before = log_snapshot()
    again = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json", HTTP_IDEMPOTENCY_KEY="pay-1")
    assert (again.status_code, again.json()["order_id"]) == (200, first.json()["order_id"])
    assert log_snapshot() == before


def test_a_repeated_start_returns_the_same_cart_and_the_key_is_the_senders_own(catalog: None) -> None:
    client, other = client_for("kate"), client_for("leo")
    first = client.post("/api/carts", HTTP_IDEMPOTENCY_KEY="start-1")
    before = log_snapshot()
    again = client.post("/api/carts", HTTP_IDEMPOTENCY_KEY="start-1")
    assert (again.status_code, again.json()["id"]) == (201, first.json()["id"])
    assert log_snapshot() == before
    assert other.post("/api/carts", HTTP_IDEMPOTENCY_KEY="start-1").json()["id"] != first.json()["id"]


@pytest.mark.parametrize("at_version", ["0", "3", "-1", "abc", "1.5", ""])
def test_time_travel_outside_the_carts_versions_is_a_400_problem(cart: tuple[APIClient, str], at_version: str) -> None:
    client, cart_id = cart
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    problem = assert_problem(client.get(f"/api/carts/{cart_id}?at_version={at_version}"), 400)
    assert "from 1 to 2" in problem["errors"]["at_version"][0]


def test_time_travel_to_each_version_matches_what_the_commands_answered(cart: tuple[APIClient, str]) -> None:
    client, cart_id = cart
    url = f"/api/carts/{cart_id}"
    answers = [client.get(url).json()]
    answers.append(client.post(f"{url}/items", {"sku": "COF-001", "quantity": 1}, format="json").json())
    answers.append(client.put(f"{url}/items/COF-001", {"quantity": 5}, format="json").json())
    answers.append(client.delete(f"{url}/items/COF-001").json())
    commands = [{k: v for k, v in answer.items() if k != "position"} for answer in answers]  # a command's own
    assert [client.get(f"{url}?at_version={v}").json() for v in (1, 2, 3, 4)] == commands


def test_the_event_stream_lists_every_field_in_version_and_position_order(cart: tuple[APIClient, str]) -> None:
    client, cart_id = cart
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": 1}, format="json")
    events = client.get(f"/api/carts/{cart_id}/events").json()
    fields = {"position", "event_id", "version", "type", "schema_version", "data", "metadata", "occurred_at"}
    assert all(fields | {"recorded_at"} <= set(e) for e in events)
    assert [e["version"] for e in events] == [1, 2, 3]
    assert [e["position"] for e in events] == sorted(e["position"] for e in events)
    assert events[1]["data"] == {"sku": "COF-001", "quantity": 2, "unit_price": "12.50"}
    assert events[2]["data"] == {"sku": "COF-001", "from_quantity": 2, "to_quantity": 1}
    assert events[0]["metadata"]["actor"] == events[0]["data"]["owner"]


def test_x_correlation_id_is_recorded_with_the_commands_event(cart: tuple[APIClient, str]) -> None:
    client, cart_id = cart
    body = {"sku": "COF-001", "quantity": 1}
    client.post(f"/api/carts/{cart_id}/items", body, format="json", headers={"X-Correlation-ID": "checkout-flow-7"})
    client.post(f"/api/carts/{cart_id}/items", body, format="json")
    events = client.get(f"/api/carts/{cart_id}/events").json()
    assert [e["type"] for e in events] == ["CartStarted", "ItemAdded", "ItemAdded"]
    assert events[1]["metadata"]["correlation_id"] == "checkout-flow-7"
    # Without the header a command starts its own chain: its correlation id is its command id.
    assert events[2]["metadata"]["correlation_id"] == events[2]["metadata"]["command_id"]
