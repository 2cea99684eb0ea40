"""The OpenAPI document: valid, served, and describing every refusal as a problem document."""

from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

PUBLIC = {
    ("post", "/api/accounts"),
    ("post", "/api/auth/token"),
    ("get", "/api/products"),
    ("get", "/api/products/{sku}"),
}
MY_OPERATIONS = {
    ("post", "/api/accounts"), ("post", "/api/auth/token"), ("get", "/api/products"), ("get", "/api/products/{sku}"),
    ("post", "/api/carts"), ("get", "/api/carts/{cart_id}"), ("get", "/api/carts/{cart_id}/events"),
    ("post", "/api/carts/{cart_id}/items"), ("put", "/api/carts/{cart_id}/items/{sku}"),
    ("delete", "/api/carts/{cart_id}/items/{sku}"), ("post", "/api/carts/{cart_id}/checkout"),
}  # fmt: skip


def operations(schema: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(method, path): op for path, ops in schema["paths"].items() for method, op in ops.items()}


def test_the_schema_validates_without_warnings() -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")


def test_the_interactive_docs_are_served() -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    # Swagger UI's start-up script is a file of its own (the Content-Security-Policy allows no inline script).
    assert b"/api/schema/" in APIClient().get("/api/docs/?script=").content


def test_every_api_operation_is_documented(schema: dict[str, Any]) -> None:
    assert set(operations(schema)) >= MY_OPERATIONS


def test_every_error_response_is_a_problem_document(schema: dict[str, Any]) -> None:
    for key, op in operations(schema).items():
        for status, response in op["responses"].items():
            if int(status) >= 400:
                assert list(response["content"]) == ["application/problem+json"], (key, status)
                assert response["content"]["application/problem+json"]["schema"]["$ref"].endswith("/Problem")


def test_authenticated_operations_document_401_and_carts_their_404(schema: dict[str, Any]) -> None:
    for key in MY_OPERATIONS - PUBLIC:
        responses = operations(schema)[key]["responses"]
        assert "401" in responses, key
        if "{cart_id}" in key[1]:
            assert "404" in responses, key


def test_cart_commands_document_their_headers_and_refusals(schema: dict[str, Any]) -> None:
    for key in [k for k in MY_OPERATIONS if k[1].startswith("/api/carts/") and k[0] != "get"]:
        op = operations(schema)[key]
        assert {"If-Match", "Idempotency-Key"} <= {p["name"] for p in op["parameters"] if p["in"] == "header"}, key
        assert {"409", "412", "422"} <= set(op["responses"]), key
        assert "ETag" in op["responses"]["200"]["headers"], key
    problem = schema["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "errors"} <= set(problem["properties"])
