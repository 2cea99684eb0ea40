"""The OpenAPI document's examples and response headers say what the API sends.

A client generated from the document, or a developer reading it, takes the examples as the
shape of the answers. They had drifted: a command's answer without the `position` its schema
requires, an order id that was not a UUID, an event's metadata with two of its five keys, the
orders' `next` link of another API (DRF's default), a cursor refusal as a 404 no longer sent,
the input guard's 400 naming a `q` most operations do not have; and no answer declared the
Retry-After header that every 429 and 503 sends (nor the orders' 503 its Cartlog-Position).
"""

from collections import Counter
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from .test_api_schema import operations

pytestmark = pytest.mark.django_db


def json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: `nullable: true` becomes "or null" (JSON Schema has no
    such keyword, so a validator would ignore it and refuse every null the API sends)."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: json_schema(value) for key, value in node.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if node.get("nullable") else converted


def examples(schema: dict[str, Any]) -> list[tuple[str, str, str, Any, dict[str, Any]]]:
    """(operation, status, example name, value, the response's schema) of every response example."""
    found = []
    for (method, path), operation in operations(schema).items():
        for status, response in operation["responses"].items():
            for content in response.get("content", {}).values():
                for name, example in content.get("examples", {}).items():
                    found.append((f"{method} {path}", status, name, example["value"], content["schema"]))
    return found


def test_every_response_example_matches_its_schema(schema: dict[str, Any]) -> None:
    components = json_schema(schema["components"])
    wrong = []
    for operation, status, name, value, response_schema in examples(schema):
        validator = Draft202012Validator({**json_schema(response_schema), "components": components})
        wrong += [(operation, status, name, error.message) for error in validator.iter_errors(value)]
    assert wrong == []
    assert len(examples(schema)) > 80  # every operation has its success and its refusals


def example(schema: dict[str, Any], method: str, path: str, status: str, name: str) -> Any:
    content = operations(schema)[(method, path)]["responses"][status]["content"]
    return next(iter(content.values()))["examples"][name]["value"]


def test_the_examples_hold_what_the_api_sends(schema: dict[str, Any]) -> None:
    added = example(schema, "post", "/api/carts/{cart_id}/items", "200", "Added")
    assert added["position"] == 42 and added["version"] == 2
    ordered = example(schema, "post", "/api/carts/{cart_id}/checkout", "200", "Ordered")
    assert ordered["order_id"] == "5b0f3c2e-9d4a-4c1b-8e7f-2a6d1c0b9e83"
    event = example(schema, "get", "/api/carts/{cart_id}/events", "200", "Events")[0]
    assert list(event["metadata"]) == ["actor", "command", "command_id", "causation_id", "correlation_id"]
    page = example(schema, "get", "/api/orders", "200", "NewestFirst")
    assert page["next"] == "https://shop.example.org/api/orders?cursor=cD0xODIy"
    assert page["previous"] is None
    cursor = example(schema, "get", "/api/orders", "400", "400InvalidCursor")
    assert "404" not in operations(schema)[("get", "/api/orders")]["responses"]
    assert list(cursor["errors"]) == ["cursor"]
    assert list(example(schema, "get", "/api/orders", "400", "400InvalidInput")["errors"]) == ["min_position"]


def test_the_input_guards_400_names_a_parameter_of_its_own_operation(schema: dict[str, Any]) -> None:
    refused = example(schema, "get", "/api/products/{sku}", "400", "InvalidInput")
    assert refused["detail"] == "sku holds a NUL byte."
    assert refused["errors"] == {"sku": ["sku holds a NUL byte."]}
    claim = example(schema, "get", "/api/claims/{claim_id}", "400", "InvalidInput")
    assert claim["errors"] == {"claim_id": ["claim_id holds a NUL byte."]}


def test_every_429_and_503_declares_retry_after_and_a_views_503_its_position(schema: dict[str, Any]) -> None:
    for key, operation in operations(schema).items():
        for status in {"429", "503"} & set(operation["responses"]):
            assert "Retry-After" in operation["responses"][status].get("headers", {}), (key, status)
    checkout = operations(schema)[("post", "/api/carts/{cart_id}/checkout")]["responses"]
    assert checkout["409"]["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 0}
    assert "Retry-After" not in operations(schema)[("post", "/api/carts/{cart_id}/items")]["responses"]["409"].get(
        "headers", {}
    )
    behind = operations(schema)[("get", "/api/orders")]["responses"]["503"]["headers"]
    assert set(behind) == {"Retry-After", "Cartlog-Position"}
    # A checkout's 503 (its coupon check pending) is not a view's: no position there.
    assert set(checkout["503"]["headers"]) == {"Retry-After"}


def test_no_two_examples_of_one_answer_share_a_name() -> None:
    """The document keys an answer's examples by name: a second of the same name replaces the first
    (the cursor refusal of /api/orders went missing behind min_position's, both "400 Invalid input")."""
    from api import examples as module  # imported here: the module's lists, not the document

    lists = {name: value for name, value in vars(module).items() if name.isupper() and isinstance(value, list)}
    shared = {
        name: [key for key, count in Counter((e.name, tuple(e.status_codes or ())) for e in found).items() if count > 1]
        for name, found in lists.items()
        if found and all(hasattr(e, "status_codes") for e in found)
    }
    assert {name: keys for name, keys in shared.items() if keys} == {}
    assert "LIST_ORDERS" in shared
