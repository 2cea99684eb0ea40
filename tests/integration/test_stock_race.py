"""No oversell under concurrency, on PostgreSQL with real threads (each on its own connection):
twelve carts race to check out the last five units; exactly five orders are placed, the other
seven are refused "Out of stock" naming the SKU with their carts still open, nothing is
reserved twice or left reserved, and a replay of the log gives the same stock level."""

import pytest
from django.contrib.auth import get_user_model

from carts import services as carts
from carts.checkout import place_order
from carts.decider import CartStatus
from carts.handler import Context, load
from eventlog.models import Event
from inventory.errors import OutOfStockError
from inventory.models import StockLevel
from inventory.services import receive_stock
from kernel.principal import Principal
from rebuilds import service as rebuilds
from tests.threads import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_twelve_carts_racing_for_the_last_five_units_place_exactly_five_orders(catalog: None) -> None:
    receive_stock("COF-001", 5, actor="test")
    shoppers = []
    for index in range(12):
        user = get_user_model().objects.create_user(f"racer{index}", password="a-long-passphrase")
        context = Context(actor=Principal.user(user.pk))
        cart_id = carts.start_cart(context).state.cart_id
        carts.add_to_cart(context, cart_id, "COF-001", 1)
        shoppers.append((context, cart_id))
    placed: list[str] = []

    def check_out(index: int) -> None:
        context, cart_id = shoppers[index]
        placed.append(str(place_order(context, cart_id, None).state.order_id))

    failures = run_together(12, check_out)

    assert len(placed) == 5
    assert len(failures) == 7 and all(isinstance(f, OutOfStockError) for f in failures), failures
    assert {(f.sku, f.title) for f in failures if isinstance(f, OutOfStockError)} == {("COF-001", "Out of stock")}
    statuses = [load(cart_id).status for _, cart_id in shoppers]
    assert (statuses.count(CartStatus.CHECKED_OUT), statuses.count(CartStatus.OPEN)) == (5, 7)
    stock = Event.objects.filter(stream_id="stock-COF-001")
    assert [stock.filter(type=t).count() for t in ("StockReserved", "ReservationConfirmed", "ReservationReleased")] == [
        5,
        5,
        0,
    ]
    confirmed = set(stock.filter(type="ReservationConfirmed").values_list("data__order_id", flat=True))
    assert confirmed == set(placed)
    assert list(stock.order_by("version").values_list("version", flat=True)) == list(range(1, 12))  # 1 + 5 + 5
    row = StockLevel.objects.get(sku="COF-001")
    assert (row.on_hand, row.reserved, row.available) == (0, 0, 0)
    assert rebuilds.rebuild("stock_levels", verify=True).differences == []
