"""The shop: shipping details at checkout, shown on the owner's order pages, and "Forget me"
with its confirmation step. Both backends."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from eventlog.models import Event
from privacy.models import DataKey
from tests.integration.shop_helpers import PASSWORD, add, cart_row, line_form, log_in_new_user

from .personal_data_helpers import ADA
from .rebuild_support import drain_consumers

pytestmark = [pytest.mark.usefixtures("catalog"), pytest.mark.django_db(transaction=True)]
SHIP = {"ship_name": ADA["name"], "ship_email": ADA["email"], "ship_address": ADA["address"]}


def ordered(client: Client, **fields: str) -> str:
    add(client, "COF-001", 2)
    log_in_new_user(client)
    row = cart_row(client)
    response = client.post("/checkout/", line_form(row, **fields))
    assert response.status_code == 302, response.content.decode()[:2000]
    return str(response["Location"])


def test_the_checkout_form_asks_for_shipping_details(client: Client) -> None:
    add(client, "COF-001", 1)
    log_in_new_user(client)
    page = client.get("/checkout/").content.decode()
    assert all(f'name="{name}"' in page for name in SHIP) and "Ship to (optional" in page


def test_shipping_details_show_on_the_confirmation_and_on_my_orders(client: Client) -> None:
    page = client.get(ordered(client, **SHIP)).content.decode()
    assert "Ship to: <strong>Ada Quillfeather</strong>, ada.quill@example.org<br>7 Lantern Row, Cogsford" in page
    drain_consumers()
    orders = client.get("/orders/").content.decode()
    assert "Ada Quillfeather, ada.quill@example.org, 7 Lantern Row, Cogsford" in orders


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"ship_name": ADA["name"]}, "Give all three shipping details, or none."),
        ({**SHIP, "ship_email": "not-an-address"}, "Enter a valid email address."),
    ],
)
def test_incomplete_or_invalid_shipping_details_are_refused_on_the_form(
    client: Client, fields: dict[str, str], message: str
) -> None:
    add(client, "COF-001", 1)
    log_in_new_user(client)
    before = Event.objects.count()
    response = client.post("/checkout/", line_form(cart_row(client), **fields))
    assert response.status_code == 400 and message in response.content.decode()
    assert Event.objects.count() == before


def test_forget_me_asks_for_the_password_and_a_wrong_one_forgets_nothing(client: Client) -> None:
    """It asked for the username, which the page shows: anyone at a browser left signed in knew it."""
    ordered(client, **SHIP)
    assert 'href="/account/forget/"' in client.get("/account/").content.decode()
    page = client.get("/account/forget/").content.decode()
    assert "Your password, to confirm" in page and 'type="password" name="password"' in page
    for typed in ("ada", "a-long-secret-8"):  # the username, or a password one key off
        response = client.post("/account/forget/", {"password": typed})
        assert response.status_code == 400
        assert "That is not your password; nothing was erased." in response.content.decode()
    assert get_user_model().objects.get(username="ada").is_active and DataKey.objects.exists()


def test_wrong_passwords_on_forget_me_spend_the_accounts_budget_of_wrong_passwords(client: Client, settings) -> None:
    """Else the form would be a way to try passwords of a signed-in account without limit."""
    ordered(client, **SHIP)
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login_account": "2/hour"}
    for _ in range(2):
        assert client.post("/account/forget/", {"password": "guess"}).status_code == 400
    refused = client.post("/account/forget/", {"password": PASSWORD})  # even the right one waits
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 3500
    assert b"Too many attempts" in refused.content
    assert get_user_model().objects.get(username="ada").is_active and DataKey.objects.exists()
    assert Client().post("/login/", {"username": "ada", "password": PASSWORD}).status_code == 429  # one budget


def test_forget_me_confirmed_erases_the_key_closes_the_account_and_logs_out(client: Client) -> None:
    ordered(client, **SHIP)
    response = client.post("/account/forget/", {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert not get_user_model().objects.get(username="ada").is_active and not DataKey.objects.exists()
    assert client.get("/orders/")["Location"].startswith("/login/")
    assert not Client().login(username="ada", password="a-long-secret-9")
