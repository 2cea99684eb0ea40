"""Each problem type the API answers with is documented at its own address (RFC 9457, section 3.1.1:
the `type` URI, dereferenced, gives human-readable documentation). It was a 404."""

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def example_types(schema: dict[str, Any]) -> set[str]:
    """The `type` of every problem example in the OpenAPI document."""
    found: set[str] = set()
    for operations in schema["paths"].values():
        for operation in operations.values():
            for response in operation.get("responses", {}).values():
                for content in response.get("content", {}).values():
                    for example in content.get("examples", {}).values():
                        value = example.get("value")
                        if isinstance(value, dict) and str(value.get("type", "")).startswith("/api/problems/"):
                            found.add(value["type"])
    return found


# Types a client meets often, written out by hand (the documented examples add the rest).
EXPECTED = {
    "/api/problems/invalid-input": ("Invalid input", 400),
    "/api/problems/not-authenticated": ("Not authenticated", 401),
    "/api/problems/not-found": ("Not found", 404),
    "/api/problems/cart-already-checked-out": ("Cart already checked out", 409),
    "/api/problems/out-of-stock": ("Out of stock", 409),
    "/api/problems/product-no-longer-available": ("Product no longer available", 409),
    "/api/problems/cart-changed-since-you-read-it": ("Cart changed since you read it", 412),
    "/api/problems/idempotency-key-reused-for-a-different-request": (
        "Idempotency-Key reused for a different request", 422,
    ),
    "/api/problems/view-not-caught-up-yet": ("View not caught up yet", 503),
    "/api/problems/coupon-check-pending": ("Coupon check pending", 503),
}  # fmt: skip


def test_every_problem_type_a_client_meets_resolves_to_a_page_saying_what_it_means(schema: dict[str, Any]) -> None:
    documented = example_types(schema)
    assert len(documented) >= 10, documented  # the examples cover most refusals
    for type_ in sorted(documented | EXPECTED.keys()):
        page = Client().get(type_)
        assert page.status_code == 200, type_
        assert page["Content-Type"].startswith("text/html")
        if type_ in EXPECTED:
            title, status = EXPECTED[type_]
            text = page.content.decode()
            assert f"<h1>{title}</h1>" in text and f"<strong>{status}</strong>" in text, type_


def test_the_index_lists_every_type_with_its_status() -> None:
    text = Client().get("/api/problems/").content.decode()
    assert '<a href="/api/problems/cart-already-checked-out">Cart already checked out</a>' in text
    assert text.count("<tr>") >= 25


def test_an_unknown_problem_type_is_a_404_problem() -> None:
    response = Client().get("/api/problems/no-such-thing")
    assert response.status_code == 404
    assert response.json()["type"] == "/api/problems/not-found"
