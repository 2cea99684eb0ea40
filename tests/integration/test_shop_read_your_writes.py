"""The shop reads its writes: "My orders" shows the order just placed, on both transports;
and the cart history's What-if runs `decide` alone, appending nothing."""

from typing import Any

import pytest
from django.test import Client

from eventlog import store
from tests.claim_helpers import claim_consumers_running, eventually
from tests.e2e.api_helpers import log_snapshot
from tests.integration.shop_helpers import add, cart_row, line_form, log_in_new_user

pytestmark = pytest.mark.usefixtures("catalog")
TRANSPORTS = ["table", pytest.param("kafka", marks=[pytest.mark.kafka, pytest.mark.slow])]


def check_out(client: Client) -> str:
    add(client, "COF-001", 2)
    row = cart_row(client)
    response = client.post("/checkout/", line_form(row))
    assert response.status_code == 302 and response["Location"] == f"/orders/{row.cart_id}/"
    confirmation = client.get(response["Location"]).content.decode()
    row.refresh_from_db()
    assert f'href="/orders/?min_position={row.last_position}"' in confirmation
    return str(row.order_id)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_my_orders_always_shows_the_order_just_placed(client: Client, transport: str, request: Any) -> None:
    if transport == "kafka":
        request.getfixturevalue("kafka")
    log_in_new_user(client)
    with claim_consumers_running(with_projections=True, transport=transport):
        first = check_out(client)
        eventually(lambda: first in client.get("/orders/").content.decode(), timeout=60)  # the consumers are up
        for _ in range(3):
            order_id = check_out(client)
            page = client.get("/orders/").content.decode()  # at once: the page waits for the checkout
            assert order_id in page and 'id="orders-behind"' not in page


@pytest.mark.django_db(transaction=True)
def test_my_orders_says_so_when_the_view_is_still_behind(client: Client, settings: Any) -> None:
    settings.MIN_POSITION_WAIT_SECONDS = 0.2
    log_in_new_user(client)
    check_out(client)  # no consumer runs: order_history stays behind
    page = client.get("/orders/").content.decode()
    assert 'id="orders-behind"' in page and f"position {store.head_position()}" in page


def history(client: Client, cart_id: str, **query: str | int) -> str:
    return client.get(f"/carts/{cart_id}/history/", query).content.decode()


@pytest.mark.django_db
def test_what_if_shows_the_events_decide_would_return_and_appends_nothing(client: Client) -> None:
    add(client, "COF-001")
    add(client, "KIT-001")
    cart_id = cart_row(client).cart_id
    before = log_snapshot()
    page = history(client, cart_id, version=2, sku="COF-001", quantity=5, **{"try": "quantity"})
    assert 'id="what-if-events"' in page and "ItemQuantityChanged" in page and "&quot;to_quantity&quot;: 5" in page
    assert "Nothing is appended to the log" in page and 'id="state-version">2<' in page
    shown = history(client, cart_id, version=2, coupon="welcome10", **{"try": "checkout"})
    assert "CheckedOut" in shown and "&quot;coupon&quot;: &quot;WELCOME10&quot;" in shown
    assert log_snapshot() == before


@pytest.mark.django_db
def test_what_if_shows_a_refusal_and_its_reason(client: Client) -> None:
    add(client, "COF-001")
    cart_id = cart_row(client).cart_id
    before = log_snapshot()
    page = history(client, cart_id, version=1, sku="COF-001", **{"try": "remove"})
    assert 'id="what-if-refused"' in page and "COF-001 is not in this cart." in page
    empty = history(client, cart_id, version=1, **{"try": "checkout"})
    assert "Your cart is empty" in empty
    typo = history(client, cart_id, sku="COF-001", quantity="x", **{"try": "add"})
    assert "Quantity must be a whole number." in typo
    assert log_snapshot() == before
