"""A NUL byte in a posted form field is the shop's 400 page naming the field, never a 500. PostgreSQL
cannot hold one in text: the cart switch reads `cart_id` from the form without a form class, and a
`cart_id` of "\\x00" failed in its query with a 500 (the forms' own fields refuse it themselves)."""

import pytest
from django.test import Client

from tests.integration.shop_helpers import add, log_in_new_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/cart/switch/", {"cart_id": "\x00"}),
        ("/cart/switch/", {"cart_id": "a\x00b"}),
        ("/cart/switch/", {"cart\x00id": "x"}),
    ],
)
def test_a_nul_byte_in_a_posted_field_is_the_shops_400_page(catalog: None, path: str, form: dict[str, str]) -> None:
    client = Client(raise_request_exception=False)
    log_in_new_user(client)
    add(client, "COF-001")
    response = client.post(path, form)
    assert response.status_code == 400, response.status_code
    assert b"holds a NUL byte" in response.content
    assert response["Content-Type"].startswith("text/html")


def test_a_form_without_a_nul_byte_is_served_as_before(catalog: None) -> None:
    client = Client()
    log_in_new_user(client)
    add(client, "COF-001")
    response = client.post("/cart/switch/", {"cart_id": "no-such-cart"})
    assert response.status_code == 302 and response["Location"] == "/cart/"
