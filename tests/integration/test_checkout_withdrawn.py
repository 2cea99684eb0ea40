"""A product taken off sale is not sold from the carts that already hold it.

Withdrawing a product (`ProductWithdrawn`: the staff unticked Active) used to stop new adds
only: a cart holding it still checked out, at its old price, taking the units from its stock.
Now its checkout is refused (409, naming the product) with nothing appended, not even a stock
reservation or a coupon claim, and the cart stays open: the shopper removes the line and
checks out the rest. The cart page says which line it is.
"""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from catalog import services as catalog
from eventlog.models import Event
from inventory.services import receive_stock
from tests.e2e.api_helpers import assert_problem, client_for

pytestmark = [pytest.mark.django_db(transaction=True)]


def log_size() -> int:
    return Event.objects.count()


@pytest.mark.parametrize("coupon", [None, "ONCE20"], ids=["no-coupon", "one-time-coupon"])
def test_a_cart_holding_a_withdrawn_product_is_refused_at_checkout_and_kept(
    listed_catalog: None, claim_consumers: None, coupon: str | None
) -> None:
    receive_stock("KIT-001", 5, actor="staff")  # tracked stock: a checkout would reserve it first
    client = client_for("gwen")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 2}, format="json")
    client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 1}, format="json")
    catalog.withdraw("KIT-001", actor="staff")
    before = log_size()

    refused = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": coupon} if coupon else {}, format="json")

    body = assert_problem(refused, 409)
    assert body["type"] == "/api/problems/product-no-longer-available"
    assert body["detail"] == "KIT-001 is no longer sold; remove it from your cart to check out."
    assert log_size() == before  # no reservation, no claim, no order
    cart = client.get(f"/api/carts/{cart_id}").json()
    assert (cart["status"], cart["version"]) == ("open", 3)

    client.delete(f"/api/carts/{cart_id}/items/KIT-001")
    order = client.post(f"/api/carts/{cart_id}/checkout", {"coupon": coupon} if coupon else {}, format="json")
    assert order.status_code == 200, order.content
    assert order.json()["total"] == ("20.00" if coupon else "25.00")  # 2 x 12.50, less 20 %
    kit_stock = Event.objects.filter(stream_id="stock-KIT-001").values_list("type", flat=True)
    assert list(kit_stock) == ["StockReceived"]


def test_relisted_it_sells_again(listed_catalog: None) -> None:
    client = client_for("hugo")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "KIT-001", "quantity": 1}, format="json")
    catalog.withdraw("KIT-001", actor="staff")
    assert client.post(f"/api/carts/{cart_id}/checkout", {}, format="json").status_code == 409
    catalog.edit_product("KIT-001", active=True, actor="staff")

    order = client.post(f"/api/carts/{cart_id}/checkout", {}, format="json")

    assert (order.status_code, order.json()["total"]) == (200, "24.00")


def test_the_shop_marks_the_line_and_refuses_the_order_on_the_checkout_page(listed_catalog: None) -> None:
    user = get_user_model().objects.create_user(username="iris", password="a-long-passphrase")
    shopper = Client()
    shopper.force_login(user)
    shopper.post("/products/COF-001/add/", {"quantity": "1"})
    shopper.post("/products/KIT-001/add/", {"quantity": "1"})
    catalog.withdraw("KIT-001", actor="staff")

    cart_page = shopper.get("/cart/").content.decode()
    assert cart_page.count("No longer sold: remove it to check out.") == 1

    page = shopper.get("/checkout/").content.decode()
    form = {
        name: page.split(f'name="{name}" value="')[1].split('"')[0] for name in ("cart_id", "version", "request_id")
    }
    refused = shopper.post("/checkout/", {**form, "coupon": ""})
    assert refused.status_code == 400
    assert "KIT-001 is no longer sold; remove it from your cart to check out." in refused.content.decode()
    assert not Event.objects.filter(type="CheckedOut").exists()


def test_what_if_check_out_says_what_the_checkout_would(listed_catalog: None) -> None:
    """The cart history's What-if runs the decider with the command the checkout would send: with the
    withdrawn SKUs too (it showed a CheckedOut the real checkout refuses)."""
    user = get_user_model().objects.create_user(username="jack", password="a-long-passphrase")
    shopper = Client()
    shopper.force_login(user)
    shopper.post("/products/KIT-001/add/", {"quantity": "1"})
    catalog.withdraw("KIT-001", actor="staff")
    cart_id = Event.objects.get(type="CartStarted").stream_id.removeprefix("cart-")

    page = shopper.get(f"/carts/{cart_id}/history/", {"try": "checkout"}).content.decode()

    assert 'id="what-if-refused"' in page
    assert "KIT-001 is no longer sold; remove it from your cart to check out." in page
