"""What the OpenAPI document promises is what the API does: found by running schemathesis
against a real server (docs/api.md), each finding kept here as an ordinary request.

- A problem's `errors` may nest: `errors.shipping.email` (a field of an object), which the
  document described as a flat map of lists, so every client validating a 400 failed on it.
- The integer and header parameters say the ranges their parsers accept, so a client
  generating requests from the document stops sending values the API always refuses.
- A 503 the API explains (a view behind, a coupon check pending) has its own `type`:
  `about:blank` with a title that is not the status phrase breaks RFC 9457 section 4.2.1, and
  left clients unable to tell the two 503s apart but by their title.
"""

from typing import Any

import pytest
from jsonschema import Draft4Validator
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem, client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

POSITION = {"type": "integer", "minimum": 0, "maximum": 999_999_999_999_999_999}


def parameter(schema: dict[str, Any], method: str, path: str, name: str) -> dict[str, Any]:
    (found,) = [p for p in schema["paths"][path][method]["parameters"] if p["name"] == name]
    return dict(found["schema"])


def problem_errors(schema: dict[str, Any], body: dict[str, Any]) -> list[str]:
    """Why `body` does not match the document's Problem component (empty when it does)."""
    validator = Draft4Validator({"$ref": "#/components/schemas/Problem", "components": schema["components"]})
    return [error.message for error in validator.iter_errors(body)]


def cart_with_beans(client: APIClient) -> str:
    cart_id = str(client.post("/api/carts").json()["id"])
    added = client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    assert added.status_code == 200
    return cart_id


def test_a_nested_field_error_is_a_problem_as_documented(schema: dict[str, Any]) -> None:
    client = client_for("ada")
    cart_id = cart_with_beans(client)
    response = client.post(f"/api/carts/{cart_id}/checkout", {"shipping": {"name": "Ada"}}, format="json")
    body = assert_problem(response, 400)
    assert body["errors"] == {
        "shipping": {"email": ["This field is required."], "address": ["This field is required."]}
    }
    assert problem_errors(schema, body) == []


def test_a_flat_field_error_still_matches_and_a_wrong_shape_does_not(schema: dict[str, Any]) -> None:
    client = client_for("ada")
    cart_id = cart_with_beans(client)
    body = assert_problem(client.post(f"/api/carts/{cart_id}/items", {"sku": 5, "quantity": 1}, format="json"), 400)
    assert body["errors"] == {"sku": ["A string is required."]}
    assert problem_errors(schema, body) == []
    # The document still says something: a number where messages belong is not a problem document.
    assert problem_errors(schema, {**body, "errors": {"sku": 5}}) != []


def test_integer_parameters_document_the_ranges_their_parsers_accept(schema: dict[str, Any]) -> None:
    events = "/api/carts/{cart_id}/events"
    assert parameter(schema, "get", "/api/carts/{cart_id}", "at_version") == {
        "type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999
    }  # fmt: skip
    assert parameter(schema, "get", events, "after_version") == {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}
    assert parameter(schema, "get", events, "limit") == {"type": "integer", "minimum": 1, "maximum": 1000}
    assert parameter(schema, "get", "/api/orders", "page_size") == {**POSITION, "minimum": 1}  # above 100: 100
    for path in ("/api/orders", "/api/analytics/summary", "/api/projections"):
        assert parameter(schema, "get", path, "min_position") == POSITION, path
        assert parameter(schema, "get", path, "Cartlog-Min-Position") == POSITION, path


def test_the_documented_ranges_are_the_accepted_ones() -> None:
    client = client_for("ada")
    cart_id = cart_with_beans(client)  # version 2
    assert client.get(f"/api/carts/{cart_id}/events", {"after_version": 2**31 - 1, "limit": 1000}).json() == []
    assert_problem(client.get(f"/api/carts/{cart_id}/events", {"after_version": 2**31}), 400)
    assert_problem(client.get(f"/api/carts/{cart_id}/events", {"limit": 1001}), 400)
    assert client.get(f"/api/carts/{cart_id}", {"at_version": 1}).json()["version"] == 1
    assert_problem(client.get(f"/api/carts/{cart_id}", {"at_version": 0}), 400)
    assert client.get("/api/orders", {"min_position": 0}).status_code == 200
    assert_problem(client.get("/api/orders", {"min_position": -1}), 400)
    assert_problem(client.get("/api/orders", {"min_position": 10**18}), 400)


def test_command_headers_document_what_is_accepted(schema: dict[str, Any]) -> None:
    if_match = parameter(schema, "post", "/api/carts/{cart_id}/items", "If-Match")
    assert if_match["type"] == "string"
    assert if_match["pattern"] == r'^\s*(\*|(W/)?"*[0-9]{1,18}"*)\s*$'
    key = parameter(schema, "post", "/api/carts/{cart_id}/items", "Idempotency-Key")
    assert key == {"type": "string", "maxLength": 200}
    client = client_for("ada")
    cart_id = cart_with_beans(client)
    url = f"/api/carts/{cart_id}/items/COF-001"
    # Each spelling the pattern allows is read as version 2; each it refuses is a 400.
    for accepted in ['"2"', "2", 'W/"2"', " *", '"2" ']:
        assert client.put(url, {"quantity": 1}, format="json", HTTP_IF_MATCH=accepted).status_code == 200, accepted
    for refused in ['""', '"two"', '"2", "3"', '"-2"', '"1234567890123456789"']:
        assert_problem(client.put(url, {"quantity": 1}, format="json", HTTP_IF_MATCH=refused), 400)


def test_a_503_the_api_explains_has_its_own_type_and_a_crash_none(
    settings: Any, schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.MIN_POSITION_WAIT_SECONDS = 0.05
    client = client_for("ada")
    response = client.get("/api/orders", {"min_position": 10**17})
    body = assert_problem(response, 503)
    assert (body["type"], body["title"]) == ("/api/problems/view-not-caught-up-yet", "View not caught up yet")
    assert response["Retry-After"] == "1"
    assert problem_errors(schema, body) == []

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr("carts.services.start_cart", crash)
    body = assert_problem(client.post("/api/carts"), 500)
    assert (body["type"], body["title"]) == ("about:blank", "Internal server error")


def strict_problem_errors(schema: dict[str, Any], body: dict[str, Any]) -> list[str]:
    """As problem_errors, with every member the body has required to be one the document names."""
    strict = {**schema["components"]["schemas"]["Problem"], "additionalProperties": False}
    components = {**schema["components"], "schemas": {**schema["components"]["schemas"], "Problem": strict}}
    validator = Draft4Validator({"$ref": "#/components/schemas/Problem", "components": components})
    return [error.message for error in validator.iter_errors(body)]


def test_the_extension_members_of_a_problem_are_documented(settings: Any, schema: dict[str, Any]) -> None:
    from inventory.services import receive_stock

    settings.MIN_POSITION_WAIT_SECONDS = 0.05
    receive_stock("COF-001", 1, actor="test")
    client = client_for("ada")
    cart_id = str(client.post("/api/carts").json()["id"])
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    short = assert_problem(client.post(f"/api/carts/{cart_id}/checkout", {}, format="json"), 409)
    assert (short["sku"], short["available"]) == ("COF-001", 1)
    behind = assert_problem(client.get("/api/orders", {"min_position": 10**17}), 503)
    assert (behind["view"], behind["covers_position"], behind["min_position"]) == ("order_history", 0, 10**17)
    for body in (short, behind):
        assert strict_problem_errors(schema, body) == [], body


def test_responses_link_to_the_operations_their_ids_lead_to(schema: dict[str, Any]) -> None:
    """OpenAPI links (api/schema.py: LINKS): a tool can follow a cart from its start (schemathesis's
    stateful phase found no transitions without them)."""
    started = schema["paths"]["/api/carts"]["post"]["responses"]["201"]["links"]
    assert started["add_to_cart"] == {"operationId": "add_to_cart", "parameters": {"cart_id": "$response.body#/id"}}
    pending = schema["paths"]["/api/accounts"]["post"]["responses"]["202"]["links"]
    claim = {"operationId": "get_claim", "parameters": {"claim_id": "$response.body#/claim_id"}}
    assert pending == {"get_claim": claim}
    operations = {op["operationId"]: op for ops in schema["paths"].values() for op in ops.values()}
    linked = 0
    for ops in schema["paths"].values():
        for op in ops.values():
            for response in op["responses"].values():
                for link in response.get("links", {}).values():
                    target = operations[link["operationId"]]  # every link leads to an operation that exists
                    takes = {p["name"] for p in target.get("parameters", [])}
                    assert set(link["parameters"]) <= takes, link
                    linked += 1
    assert linked == 11


def test_following_the_links_of_a_started_cart_works() -> None:
    client = client_for("ada")
    body = client.post("/api/carts").json()  # start_cart: $response.body#/id is the cart id
    added = client.post(f"/api/carts/{body['id']}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    assert added.status_code == 200
    changed = client.put(f"/api/carts/{added.json()['id']}/items/COF-001", {"quantity": 2}, format="json")
    assert changed.json()["items"][0]["quantity"] == 2
