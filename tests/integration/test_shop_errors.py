"""Every refused action in the shop ends on a page that says why in a shopper's
words (never a 500 or a traceback), and changes nothing it should not."""

from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from projections.models import CartView
from shop.sending import ALREADY_CHECKED_OUT, CHANGED_ELSEWHERE
from tests.claim_helpers import claim_consumers_running, eventually
from tests.integration.shop_helpers import PASSWORD, add, cart_row, line_form, log_in_new_user, sign_up

pytestmark = pytest.mark.usefixtures("catalog")


def html(response) -> str:  # type: ignore[no-untyped-def]
    return unescape(response.content.decode())


def test_a_quantity_out_of_range_is_shown_beside_the_field(client: Client) -> None:
    response = client.post("/products/COF-001/add/", {"quantity": 0})
    assert response.status_code == 400
    assert 'id="quantity-error"' in html(response) and "Quantity must be" in html(response)
    assert not CartView.objects.filter(item_count__gt=0).exists()


def test_a_quantity_that_is_not_a_number_is_shown_beside_the_field(client: Client) -> None:
    response = client.post("/products/COF-001/add/", {"quantity": "lots"})
    assert response.status_code == 400 and "Enter a whole number." in html(response)


@pytest.mark.parametrize("quantity", ["\u0663", "\uff13", "1\u0663"])  # Arabic-Indic 3, full-width 3, 1 and ٣
def test_a_quantity_in_other_than_ascii_digits_is_refused_as_the_api_refuses_it(client: Client, quantity: str) -> None:
    response = client.post("/products/COF-001/add/", {"quantity": quantity})
    assert response.status_code == 400 and "Enter a whole number." in html(response)
    assert not CartView.objects.filter(item_count__gt=0).exists()
    add(client, "COF-001")
    response = client.post("/cart/lines/COF-001/update/", line_form(cart_row(client), quantity=quantity))
    assert response.status_code == 400
    assert cart_row(client).lines[0]["quantity"] == 1


def test_a_form_larger_than_the_shop_accepts_is_said_so(client: Client, settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = client.post("/products/COF-001/add/", {"quantity": "1", "note": "x" * 20_000})
    assert response.status_code == 400
    assert "The form you sent is larger than the shop accepts." in html(response)
    assert "characters" not in html(response)  # it said: "This address holds characters the shop cannot read."


def test_an_inactive_product_cannot_be_added(client: Client) -> None:
    assert "This product is no longer available." in html(client.get("/products/OLD-001/"))
    response = client.post("/products/OLD-001/add/", {"quantity": 1})
    assert response.status_code == 400 and "OLD-001 is no longer available." in html(response)


def test_a_bad_quantity_in_the_cart_is_shown_on_its_line(client: Client) -> None:
    add(client, "COF-001")
    row = cart_row(client)
    response = client.post("/cart/lines/COF-001/update/", line_form(row, quantity=500))
    assert response.status_code == 400
    assert 'id="error-COF-001"' in html(response) and "Quantity must be" in html(response)
    assert cart_row(client).lines[0]["quantity"] == 1


def test_a_change_made_in_another_tab_is_reported_and_the_cart_reloaded(client: Client) -> None:
    add(client, "COF-001")
    seen = cart_row(client)  # the first tab renders the cart at this version
    add(client, "COF-001", 2)  # the second tab adds meanwhile
    response = client.post("/cart/lines/COF-001/update/", line_form(seen, quantity=5), follow=True)
    assert CHANGED_ELSEWHERE in html(response)
    assert cart_row(client).lines[0]["quantity"] == 3  # the other tab's change stands
    assert 'value="3"' in html(response)


def test_a_cart_checked_out_in_another_tab_shows_the_message_and_the_current_cart(client: Client) -> None:
    add(client, "COF-001")
    log_in_new_user(client)
    seen = cart_row(client)
    assert client.post("/checkout/", line_form(seen)).status_code == 302  # the other tab checks out
    response = client.post("/cart/lines/COF-001/update/", line_form(seen, quantity=2), follow=True)
    assert ALREADY_CHECKED_OUT in html(response) and "Your cart is empty" in html(response)
    again = client.post("/checkout/", line_form(seen), follow=True)
    assert ALREADY_CHECKED_OUT in html(again)


def test_someone_elses_cart_cannot_be_changed(client: Client) -> None:
    other = Client()
    add(other, "COF-001")
    theirs = cart_row(other)
    response = client.post("/cart/lines/COF-001/remove/", line_form(theirs), follow=True)
    assert "not yours" in html(response)
    assert cart_row(other).item_count == 1


def test_an_unknown_coupon_is_shown_beside_the_coupon_field(client: Client) -> None:
    add(client, "COF-001")
    log_in_new_user(client)
    response = client.post("/checkout/", line_form(cart_row(client), coupon="NOPE"))
    assert response.status_code == 400
    assert 'id="coupon-error"' in html(response) and "There is no active coupon 'NOPE'." in html(response)
    assert cart_row(client).status == "open"


def test_checking_out_an_empty_cart_goes_back_to_the_cart(client: Client) -> None:
    log_in_new_user(client)
    response = client.get("/checkout/", follow=True)
    assert "Your cart is empty" in html(response)


def test_an_invalid_username_is_explained(client: Client) -> None:
    response = client.post("/signup/", {"username": "x", "password": PASSWORD})
    assert response.status_code == 400 and "A username has 3 to 150 characters." in html(response)
    response = client.post("/signup/", {"username": "newbie", "password": "123"})
    assert response.status_code == 400 and 'id="password-error"' in html(response)


@pytest.mark.django_db(transaction=True)
def test_a_taken_username_is_said_clearly(client: Client) -> None:
    sign_up(Client(), "taken")
    with claim_consumers_running():
        response = client.post("/signup/", {"username": "Taken", "password": PASSWORD})
    assert response.status_code == 400 and "That username is taken." in html(response)


@pytest.mark.django_db(transaction=True)
def test_a_pending_sign_up_says_the_name_is_being_checked_and_signs_in_once_accepted(client: Client, settings) -> None:
    settings.CLAIM_WAIT_SECONDS = 0.1
    add(client, "KIT-001")
    response = client.post("/signup/", {"username": "patient", "password": PASSWORD}, follow=True)
    assert "Checking your username" in html(response) and "Check again" in html(response)
    with claim_consumers_running():
        eventually(lambda: get_user_model().objects.filter(username="patient").exists())
    response = client.get("/signup/pending/", follow=True)
    assert "Welcome, patient! Your cart came with you." in html(response)
    assert cart_row(client).owner.startswith("user:")


def test_a_wrong_password_is_refused_politely(client: Client) -> None:
    log_in_new_user(client, "carol")
    client.post("/logout/")
    response = client.post("/login/", {"username": "carol", "password": "wrong"})
    assert response.status_code == 400 and "Please enter a correct username and password" in html(response)


def test_a_form_without_its_csrf_token_is_refused_with_a_designed_page() -> None:
    response = Client(enforce_csrf_checks=True).post("/products/COF-001/add/", {"quantity": 1})
    assert response.status_code == 403 and "This form had expired" in html(response)


@pytest.mark.parametrize(
    "path", ["/cart/lines/COF-001/remove/", "/cart/lines/COF-001/update/", "/products/COF-001/add/", "/logout/"]
)
def test_a_get_to_a_command_url_is_refused_with_a_designed_page(client: Client, path: str) -> None:
    # It was an empty 405, a blank page in the browser (reloading the address a refused form went to).
    response = client.get(path)
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "Not a page to open" in html(response) and 'href="/cart/"' in html(response)


def test_a_server_error_renders_the_designed_500_page(monkeypatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("shop.queries.products", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert "Something went wrong" in html(response) and "Traceback" not in html(response)
