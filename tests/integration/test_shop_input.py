"""The shop refuses a NUL byte in a path or query value with its 400 page, never a 500."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    ["/products/COF%00-001/", "/?q=a%00b", "/carts/abc%00/history/", "/orders/x%00/", "/login/?next=/%00"],
)
def test_a_nul_byte_is_the_shops_400_page(catalog: None, path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 400
    assert b"NUL byte" in response.content
    assert response["Content-Type"].startswith("text/html")


def test_a_nul_byte_in_a_posted_next_is_not_followed(catalog: None) -> None:
    response = Client().post("/login/", {"username": "nobody", "password": "x", "next": "/\x00"})
    assert response.status_code in (200, 400)
