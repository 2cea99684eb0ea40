"""Stock and reservations end to end (inventory/, carts/checkout.py), on PostgreSQL and SQLite:
the stock a product shows, checkout taking it, refusing what is not there, giving back what a
failed or dead checkout set aside, and the view a replay of the log reproduces."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from carts import services as carts
from carts.checkout import CouponUsedError, place_order
from carts.decider import CartStatus
from carts.handler import Context, load
from eventlog.models import Event
from inventory import reservations
from inventory.models import StockLevel
from inventory.services import receive_stock
from kernel.principal import Principal
from projections.models import CartView
from rebuilds import service as rebuilds

pytestmark = pytest.mark.django_db(transaction=True)


def shopper(name: str = "ada") -> tuple[APIClient, Context]:
    user = get_user_model().objects.create_user(name, password="a-long-passphrase")
    api = APIClient()
    api.force_authenticate(user)
    return api, Context(actor=Principal.user(user.pk))


def cart_with(context: Context, *lines: tuple[str, int]) -> str:
    cart_id = carts.start_cart(context).state.cart_id
    for sku, quantity in lines:
        carts.add_to_cart(context, cart_id, sku, quantity)
    return cart_id


def level(sku: str) -> tuple[int, int, int]:
    row = StockLevel.objects.get(sku=sku)
    return row.on_hand, row.reserved, row.available


def stock_types(sku: str) -> list[str]:
    return list(Event.objects.filter(stream_id=f"stock-{sku}").order_by("version").values_list("type", flat=True))


def test_the_api_shows_units_available_and_null_for_a_product_sold_without_limit(catalog: None) -> None:
    receive_stock("COF-001", 7, actor="test")
    api = APIClient()
    assert api.get("/api/products/COF-001").json()["stock"] == 7
    assert api.get("/api/products/KIT-001").json()["stock"] is None
    listed = {p["sku"]: p["stock"] for p in api.get("/api/products").json()}
    assert listed == {"COF-001": 7, "KIT-001": None}


def test_receive_stock_appends_stock_received_and_says_the_level(
    catalog: None, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("receive_stock", "COF-001", "12")
    call_command("receive_stock", "COF-001", "-2", "--adjust", "--reason", "a broken box")
    assert capsys.readouterr().out.splitlines() == [
        "COF-001: 12 on hand, 0 reserved, 12 available",
        "COF-001: 10 on hand, 0 reserved, 10 available",
    ]
    assert stock_types("COF-001") == ["StockReceived", "StockAdjusted"]
    assert level("COF-001") == (10, 0, 10)


def test_a_negative_receipt_points_to_adjust_and_appends_nothing(catalog: None) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("receive_stock", "COF-001", "-3")
    assert str(refused.value) == "Receive a positive number of units. To take units off, use --adjust --reason WHY."
    assert stock_types("COF-001") == []


@pytest.mark.parametrize("sku", ["NOPE-1", "cof-001", "", "X" * 300])
def test_stock_for_a_sku_that_is_no_product_is_refused_and_nothing_is_appended(catalog: None, sku: str) -> None:
    # Each of these made a stream of its own (stock-NOPE-1, stock-cof-001, stock-) or a traceback.
    before = Event.objects.count()
    with pytest.raises(CommandError, match="There is no product with SKU"):
        call_command("receive_stock", sku, "5")
    with pytest.raises(CommandError, match="There is no product with SKU"):
        call_command("receive_stock", sku, "-1", "--adjust", "--reason", "a count")
    assert Event.objects.count() == before


def test_a_checkout_with_a_stale_if_match_is_a_412_that_reserves_nothing(catalog: None) -> None:
    from dataclasses import replace

    from carts.errors import StaleVersionError

    receive_stock("COF-001", 5, actor="test")
    context = Context(actor=Principal.parse("user:7"))
    cart_id = carts.start_cart(context).state.cart_id
    carts.add_to_cart(context, cart_id, "COF-001", 2)  # version 2
    before = Event.objects.count()
    with pytest.raises(StaleVersionError):
        place_order(replace(context, expected_version=1), cart_id, None)
    # No StockReserved and StockReleased around the refusal: nothing at all.
    assert Event.objects.count() == before
    assert level("COF-001") == (5, 0, 5)


def test_checkout_reserves_then_confirms_and_the_units_leave_the_stock(catalog: None) -> None:
    receive_stock("COF-001", 5, actor="test")
    api, context = shopper()
    cart_id = cart_with(context, ("COF-001", 2), ("KIT-001", 1))  # KIT-001: no stock stream, not reserved
    response = api.post(f"/api/carts/{cart_id}/checkout", {}, format="json")
    assert response.status_code == 200, response.content
    assert stock_types("COF-001") == ["StockReceived", "StockReserved", "ReservationConfirmed"]
    assert level("COF-001") == (3, 0, 3)
    assert api.get("/api/products/COF-001").json()["stock"] == 3
    confirmed = Event.objects.get(stream_id="stock-COF-001", type="ReservationConfirmed")
    assert confirmed.data["order_id"] == response.json()["order_id"]
    assert not Event.objects.filter(stream_id="stock-KIT-001").exists()


def test_a_cart_asking_for_more_than_is_left_gets_409_naming_the_sku_and_stays_open(catalog: None) -> None:
    receive_stock("COF-001", 3, actor="test")
    receive_stock("KIT-001", 4, actor="test")
    api, context = shopper()
    cart_id = cart_with(context, ("COF-001", 4), ("KIT-001", 1))
    response = api.post(f"/api/carts/{cart_id}/checkout", {}, format="json")
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert (body["title"], body["sku"], body["available"]) == ("Out of stock", "COF-001", 3)
    assert body["detail"] == "Only 3 of COF-001 left; your cart asks for 4."
    assert load(cart_id).status is CartStatus.OPEN
    # COF-001 comes first (lines are reserved in SKU order) and is short: nothing was set aside.
    assert stock_types("KIT-001") == [] or stock_types("KIT-001")[0] == "StockReceived"
    assert (level("COF-001"), level("KIT-001")) == ((3, 0, 3), (4, 0, 4))


def test_a_line_reserved_before_a_short_one_is_released(catalog: None) -> None:
    receive_stock("COF-001", 5, actor="test")
    receive_stock("KIT-001", 1, actor="test")
    _, context = shopper()
    cart_id = cart_with(context, ("COF-001", 2), ("KIT-001", 3))
    with pytest.raises(Exception, match="Only 1 of KIT-001 left"):
        place_order(context, cart_id, None)
    assert stock_types("COF-001") == ["StockReceived", "StockReserved", "ReservationReleased"]
    assert level("COF-001") == (5, 0, 5)


def test_a_checkout_refused_after_reserving_gives_the_units_back(catalog: None, claim_consumers: None) -> None:
    receive_stock("COF-001", 5, actor="test")
    _, first = shopper()
    place_order(first, cart_with(first, ("KIT-001", 1)), "ONCE20")
    _, second = shopper("bob")
    cart_id = cart_with(second, ("COF-001", 2))
    with pytest.raises(CouponUsedError):  # refused after its stock was reserved
        place_order(second, cart_id, "ONCE20")
    assert stock_types("COF-001") == ["StockReceived", "StockReserved", "ReservationReleased"]
    assert level("COF-001") == (5, 0, 5)
    assert load(cart_id).status is CartStatus.OPEN


def test_the_sweep_releases_a_dead_checkouts_reservation_and_never_a_confirmed_one(catalog: None) -> None:
    receive_stock("COF-001", 5, actor="test")
    dead = reservations.reserve([("COF-001", 2)], for_cart="a-cart-whose-process-died", actor="test")
    _, context = shopper()
    place_order(context, cart_with(context, ("COF-001", 1)), None)
    assert level("COF-001") == (4, 2, 2)
    assert reservations.expire(timezone.now()) == []  # not lapsed yet
    later = timezone.now() + timedelta(seconds=301)  # STOCK_RESERVATION_SECONDS is 300
    assert reservations.expire(later) == [f"COF-001:{dead.id}"]
    assert reservations.expire(later) == []  # released once
    assert level("COF-001") == (4, 0, 4)
    released = Event.objects.get(stream_id="stock-COF-001", type="ReservationReleased")
    assert (released.data["reservation"], released.data["reason"]) == (dead.id, "expired")


def test_a_confirmation_after_the_sweep_released_its_reservation_places_no_order(catalog: None) -> None:
    receive_stock("COF-001", 5, actor="test")
    _, context = shopper()
    cart_id = cart_with(context, ("COF-001", 2))
    held = reservations.reserve([("COF-001", 2)], for_cart=cart_id, actor="test")
    reservations.expire(timezone.now() + timedelta(seconds=301))
    with pytest.raises(Exception, match="released before the order was placed"):
        reservations.confirm(held, "an-order", actor="test")
    assert level("COF-001") == (5, 0, 5)


def test_replaying_the_stock_streams_reproduces_the_levels(catalog: None) -> None:
    receive_stock("COF-001", 6, actor="test")
    receive_stock("KIT-001", 2, actor="test")
    _, context = shopper()
    place_order(context, cart_with(context, ("COF-001", 2), ("KIT-001", 2)), None)
    reservations.reserve([("COF-001", 1)], for_cart="pending", actor="test")
    assert rebuilds.rebuild("stock_levels", verify=True).differences == []
    StockLevel.objects.update(on_hand=0, reserved=0, available=0, version=0)  # a view lost: rebuild it
    rebuilds.rebuild("stock_levels")
    assert (level("COF-001"), level("KIT-001")) == ((4, 1, 3), (0, 0, 0))


def test_the_shop_says_only_n_left_and_out_of_stock_and_offers_no_add(catalog: None) -> None:
    receive_stock("COF-001", 3, actor="test")
    receive_stock("KIT-001", 1, actor="test")
    _, context = shopper()
    place_order(context, cart_with(context, ("KIT-001", 1)), None)
    shop = Client()
    home = shop.get("/").content.decode()
    assert "Only 3 left" in home and "Out of stock" in home
    sold_out = shop.get("/products/KIT-001/").content.decode()
    assert "Out of stock" in sold_out and "Add to cart</button>" not in sold_out
    assert "Only 3 left" in shop.get("/products/COF-001/").content.decode()


def test_the_shops_checkout_shows_the_out_of_stock_refusal(catalog: None) -> None:
    receive_stock("COF-001", 1, actor="test")
    user = get_user_model().objects.create_user("cy", password="a-long-passphrase")
    shop = Client()
    shop.force_login(user)
    shop.post("/products/COF-001/add/", {"quantity": 2})
    cart = CartView.objects.get(owner=f"user:{user.pk}")
    response = shop.post("/checkout/", {"cart_id": cart.cart_id, "version": cart.version})
    assert response.status_code == 400
    assert "Only 1 of COF-001 left; your cart asks for 2." in response.content.decode()
    assert load(cart.cart_id).status is CartStatus.OPEN


def test_staff_receive_stock_in_the_admin_through_stock_commands(catalog: None) -> None:
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("boss", password="a-long-secret-9"))
    response = staff.post("/admin/inventory/stocklevel/add/", {"sku": "COF-001", "receive": "8", "reason": ""})
    assert response.status_code == 302, response.content.decode()[:2000]
    response = staff.post("/admin/inventory/stocklevel/COF-001/change/", {"adjust_by": "-3", "reason": "a count"})
    assert response.status_code == 302
    refused = staff.post("/admin/inventory/stocklevel/COF-001/change/", {"adjust_by": "-9", "reason": "a count"})
    assert refused.status_code == 200 and "it cannot go down by 9" in refused.content.decode()
    assert stock_types("COF-001") == ["StockReceived", "StockAdjusted"]
    assert level("COF-001") == (5, 0, 5)
    assert Event.objects.get(stream_id="stock-COF-001", version=1).metadata["actor"].startswith("user:")
    before = Event.objects.count()
    unknown = staff.post("/admin/inventory/stocklevel/add/", {"sku": "NOPE-1", "receive": "8", "reason": ""})
    assert unknown.status_code == 200 and "There is no product with SKU &#x27;NOPE-1&#x27;." in unknown.content.decode()
    assert Event.objects.count() == before
