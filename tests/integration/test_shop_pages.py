"""Every shop page renders, through the Django test client, on SQLite and PostgreSQL."""

import re

import pytest
from django.test import Client
from django.utils import timezone

from analytics.models import Recommendation
from projections.models import CartView
from tests.claim_helpers import claim_consumers_running, eventually
from tests.integration.shop_helpers import add, cart_row, line_form, log_in, log_in_new_user, sign_up

pytestmark = pytest.mark.usefixtures("catalog")


def test_catalog_home_lists_active_products_by_category_with_prices(client: Client) -> None:
    page = client.get("/").content.decode()
    assert "Beans" in page and "€12.50" in page and "Dripper" in page
    assert "Gone" not in page
    assert "Coffee" in page and "Kitchen" in page
    assert "<title>Catalog · cartlog shop</title>" in page


def test_search_by_name_and_category_filter(client: Client, listed_catalog: None) -> None:
    page = client.get("/", {"q": "drip"}).content.decode()
    assert "Dripper" in page and "Beans" not in page
    page = client.get("/", {"category": "Coffee"}).content.decode()
    assert "Beans" in page and "Dripper" not in page


def test_product_page_has_price_quantity_and_add_button(client: Client) -> None:
    page = client.get("/products/COF-001/").content.decode()
    assert "€12.50" in page and 'name="quantity"' in page and ">Add to cart</button>" in page
    assert '<label for="id_quantity">Quantity</label>' in page
    assert "Customers also bought" not in page  # no recommendations yet


def test_customers_also_bought_appears_when_the_recommendation_view_has_rows(client: Client) -> None:
    # Rows as the Spark job loads them; an inactive recommendation is left out by analytics.queries.
    for rank, recommended in enumerate(["KIT-001", "OLD-001"], start=1):
        Recommendation.objects.create(
            sku="COF-001",
            rank=rank,
            recommended_sku=recommended,
            support=3,
            confidence=0.5,
            lift=2,
            source="fp_growth",
            computed_at=timezone.now(),
            covers_position=0,
        )
    page = client.get("/products/COF-001/").content.decode()
    assert "Customers also bought" in page and "/products/KIT-001/" in page
    assert "/products/OLD-001/" not in page


def test_unknown_product_is_the_designed_404(client: Client) -> None:
    response = client.get("/products/NOPE/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode() and "Back to the catalog" in response.content.decode()


def test_adding_shows_the_count_in_the_header_and_the_line_in_the_cart(client: Client) -> None:
    add(client, "COF-001", 2)
    add(client, "KIT-001")
    page = client.get("/cart/").content.decode()
    assert 'id="cart-count" hx-swap-oob="true">3</span>' in page
    assert "Beans" in page and "Dripper" in page and "€49.00" in page
    assert ">Update</button>" in page and ">Remove</button>" in page and ">Checkout</a>" in page
    assert cart_row(client).owner.startswith("anon:")


def test_update_and_remove_a_line(client: Client) -> None:
    add(client, "COF-001")
    add(client, "KIT-001")
    row = cart_row(client)
    assert client.post("/cart/lines/COF-001/update/", line_form(row, quantity=3)).status_code == 302
    row = cart_row(client)
    assert client.post("/cart/lines/KIT-001/remove/", line_form(row)).status_code == 302
    row = cart_row(client)
    assert [(line["sku"], line["quantity"]) for line in row.lines] == [("COF-001", 3)]


def test_empty_cart_page(client: Client) -> None:
    page = client.get("/cart/").content.decode()
    assert "Your cart is empty" in page and "<title>Your cart · cartlog shop</title>" in page


@pytest.mark.django_db(transaction=True)
def test_sign_up_carries_the_anonymous_cart_over_as_an_event(client: Client) -> None:
    add(client, "COF-001", 2)
    cart_id = cart_row(client).cart_id
    sign_up(client)
    assert "Your cart came with you." in client.get("/cart/").content.decode()
    row = CartView.objects.get(cart_id=cart_id)
    assert row.owner.startswith("user:") and row.item_count == 2
    history = client.get(f"/carts/{cart_id}/history/").content.decode()
    assert "CartOwnerChanged" in history


def test_log_in_carries_the_cart_and_keeps_the_accounts_older_cart(client: Client) -> None:
    log_in_new_user(client, "bob")
    add(client, "KIT-001")
    older = cart_row(client).cart_id
    client.post("/logout/")
    add(client, "COF-001", 4)
    anonymous = cart_row(client).cart_id
    log_in(client, "bob")
    assert cart_row(client).cart_id == anonymous
    page = client.get("/cart/").content.decode()
    assert "Your other open cart" in page and older in page
    client.post("/cart/switch/", {"cart_id": older})
    assert cart_row(client).cart_id == older


def test_checkout_asks_an_anonymous_visitor_to_log_in_first(client: Client) -> None:
    add(client, "COF-001")
    page = client.get("/checkout/").content.decode()
    assert "Log in to check out" in page and "/login/?next=/checkout/" in page and "/signup/?next=/checkout/" in page


@pytest.mark.django_db(transaction=True)
def test_checkout_with_a_coupon_confirms_and_lists_the_order(client: Client) -> None:
    add(client, "COF-001", 2)
    log_in_new_user(client)
    row = cart_row(client)
    assert "Coupon code (optional)" in client.get("/checkout/").content.decode()
    response = client.post("/checkout/", line_form(row, coupon="welcome10"))
    assert response.status_code == 302 and response["Location"] == f"/orders/{row.cart_id}/"
    confirmation = client.get(response["Location"]).content.decode()
    row.refresh_from_db()
    assert row.order_id and row.order_id in confirmation and "€22.50" in confirmation and "Beans" in confirmation
    with claim_consumers_running(with_projections=True):  # order_history is built by a consumer
        eventually(lambda: str(row.order_id) in client.get("/orders/").content.decode())
    orders = client.get("/orders/").content.decode()
    assert row.order_id in orders and "<title>My orders · cartlog shop</title>" in orders
    assert 'id="cart-count" hx-swap-oob="true">0</span>' in orders


def test_cart_history_steps_through_versions(client: Client) -> None:
    add(client, "COF-001")
    add(client, "KIT-001")
    cart_id = cart_row(client).cart_id
    latest = client.get(f"/carts/{cart_id}/history/").content.decode()
    assert "CartStarted" in latest and "ItemAdded" in latest and 'id="state-version">3<' in latest
    earlier = client.get(f"/carts/{cart_id}/history/", {"version": 2}).content.decode()
    assert 'id="state-version">2<' in earlier and 'data-sku="COF-001"' in earlier
    assert 'data-sku="KIT-001"' not in earlier
    assert f"/api/carts/{cart_id}?at_version=2" in earlier and f"/api/carts/{cart_id}/events" in earlier
    assert "?version=1" in earlier and "?version=3" in earlier  # previous / next


def test_someone_elses_cart_history_is_a_404(client: Client) -> None:
    add(client, "COF-001")
    cart_id = cart_row(client).cart_id
    assert Client().get(f"/carts/{cart_id}/history/").status_code == 404


def test_log_out(client: Client) -> None:
    log_in_new_user(client)
    response = client.post("/logout/")
    assert response.status_code == 302
    assert "Log in" in client.get("/").content.decode()


def test_sign_up_and_log_in_pages_have_labelled_fields_and_titles(client: Client) -> None:
    for url, title, button in (("/signup/", "Sign up", "Sign up"), ("/login/", "Log in", "Log in")):
        page = client.get(url).content.decode()
        assert f"<title>{title} · cartlog shop</title>" in page and f">{button}</button>" in page
        assert (
            '<label for="id_username">Username</label>' in page and '<label for="id_password">Password</label>' in page
        )


def test_every_post_form_on_every_page_carries_a_csrf_token(client: Client) -> None:
    from tests.e2e.test_shop_external_urls import every_page

    for url, page in every_page(client).items():
        forms = re.findall(r"<form[^>]*method=\"post\".*?</form>", page, flags=re.S)
        assert all("csrfmiddlewaretoken" in form for form in forms), url
