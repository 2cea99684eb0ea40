"""`GET /api/carts/<id>/events` a page at a time: `?after_version=&limit=`, the body a list, `Link: rel="next"`.

A cart of 7 events (StartCart, then 6 commands); the expectations are written out by hand.
"""

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.api_helpers import assert_problem, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def seven(catalog: None) -> tuple[APIClient, str]:
    """A cart at version 7."""
    client = client_for("pia")
    cart_id = client.post("/api/carts").json()["id"]
    for quantity in (1, 2, 3, 4, 5, 6):
        if quantity == 1:
            response = client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
        else:
            response = client.put(f"/api/carts/{cart_id}/items/COF-001", {"quantity": quantity}, format="json")
        assert response.status_code == 200, response.content
    assert response["ETag"] == '"7"'
    return client, cart_id


def page(client: APIClient, cart_id: str, query: str) -> tuple[list[int], str | None]:
    response = client.get(f"/api/carts/{cart_id}/events{query}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert isinstance(body, list)  # the body stays a list, as before pagination
    return [event["version"] for event in body], response.headers.get("Link")


def link(cart_id: str, after: int, limit: int) -> str:
    return f'</api/carts/{cart_id}/events?after_version={after}&limit={limit}>; rel="next"'


def test_pages_of_three_with_next_links_until_the_last(seven: tuple[APIClient, str]) -> None:
    client, cart = seven
    assert page(client, cart, "?limit=3") == ([1, 2, 3], link(cart, 3, 3))
    assert page(client, cart, "?after_version=3&limit=3") == ([4, 5, 6], link(cart, 6, 3))
    assert page(client, cart, "?after_version=6&limit=3") == ([7], None)
    assert page(client, cart, "?after_version=7&limit=3") == ([], None)
    assert page(client, cart, "?after_version=70") == ([], None)


def test_without_parameters_the_first_hundred_which_here_is_all(seven: tuple[APIClient, str]) -> None:
    client, cart = seven
    assert page(client, cart, "") == ([1, 2, 3, 4, 5, 6, 7], None)
    assert page(client, cart, "?after_version=0") == ([1, 2, 3, 4, 5, 6, 7], None)


def test_a_page_that_ends_on_the_last_event_has_no_next_link(seven: tuple[APIClient, str]) -> None:
    client, cart = seven
    assert page(client, cart, "?limit=7") == ([1, 2, 3, 4, 5, 6, 7], None)
    assert page(client, cart, "?limit=6") == ([1, 2, 3, 4, 5, 6], link(cart, 6, 6))
    assert page(client, cart, "?after_version=5&limit=2") == ([6, 7], None)
    assert page(client, cart, "?after_version=2&limit=1") == ([3], link(cart, 3, 1))


def test_following_the_links_lists_every_event_once_in_order(seven: tuple[APIClient, str]) -> None:
    client, cart = seven
    seen: list[int] = []
    query: str | None = "?limit=2"
    while query is not None:
        versions, next_link = page(client, cart, query)
        seen += versions
        query = next_link[next_link.index("?") : next_link.index(">")] if next_link else None
    assert seen == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=-1", "limit"), ("limit=abc", "limit"),
        ("limit=1.5", "limit"), ("limit=", "limit"), ("limit=%C2%B2", "limit"), ("limit=+3", "limit"),
        ("after_version=-1", "after_version"), ("after_version=%D9%A3", "after_version"),
        ("after_version=x", "after_version"), ("after_version=", "after_version"),
        ("after_version=99999999999", "after_version"),
    ],
)  # fmt: skip
def test_a_bad_cursor_or_limit_is_a_400_naming_the_field(seven: tuple[APIClient, str], query: str, field: str) -> None:
    client, cart = seven
    body: dict[str, Any] = assert_problem(client.get(f"/api/carts/{cart}/events?{query}"), 400)
    assert list(body["errors"]) == [field]


def test_limit_1000_is_allowed(seven: tuple[APIClient, str]) -> None:
    client, cart = seven
    assert page(client, cart, "?limit=1000") == ([1, 2, 3, 4, 5, 6, 7], None)


def test_a_strangers_cart_is_404_whatever_the_parameters(seven: tuple[APIClient, str]) -> None:
    _, cart = seven
    assert_problem(client_for("stranger").get(f"/api/carts/{cart}/events?limit=0"), 404)


def test_the_schema_documents_the_cursor_the_limit_and_the_next_link() -> None:
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    operation = response.json()["paths"]["/api/carts/{cart_id}/events"]["get"]
    assert {p["name"] for p in operation["parameters"] if p["in"] == "query"} == {"after_version", "limit"}
    assert "Link" in operation["responses"]["200"]["headers"]
    assert "400" in operation["responses"]
