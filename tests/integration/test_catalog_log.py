"""The catalog as a log: every product change is an event on `product-<sku>`, and the
product table the shop, the API and the cart commands read is a projection of them.

Both backends: the default database of the run (PostgreSQL or SQLite).
"""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from catalog import services, streams
from catalog.models import Product
from catalog.seed_data import PRODUCTS
from eventlog import store
from eventlog.models import Event
from tests.integration.shop_helpers import add, cart_row

pytestmark = pytest.mark.django_db(transaction=True)


def logged() -> int:
    """How many events the log holds (positions run on across tests, counts do not)."""
    return Event.objects.count()


def types(sku: str) -> list[str]:
    return [event.type for event in store.read_stream(streams.stream_id(sku))]


def row(sku: str) -> tuple[str, str, str, Decimal, bool]:
    product = Product.objects.get(sku=sku)
    return product.name, product.category, product.description, product.price, product.active


def products() -> list[tuple[str, str, str, Decimal, bool]]:
    return sorted(Product.objects.values_list("sku", "name", "category", "price", "active"))


def staff(client: Client) -> None:
    client.force_login(get_user_model().objects.create_superuser(username="boss", password="a-long-secret-9"))


def test_seeding_lists_each_demo_product_once_and_seeding_again_appends_nothing() -> None:
    start = logged()
    call_command("seed_catalog", verbosity=0)
    head = logged()
    call_command("seed_catalog", verbosity=0)

    # a ProductListed each, one ProductWithdrawn, and a StockReceived each (the stock step, inventory/seeding.py)
    assert logged() == head == start + 43 + 1 + 43
    assert types("COF-001") == ["ProductListed"]
    assert types("OUT-007") == ["ProductListed", "ProductWithdrawn"]
    assert row("COF-001") == (
        "Ethiopian Yirgacheffe Beans 250g",
        "Coffee & Tea",
        "Light roast with notes of jasmine and lemon.",
        Decimal("12.50"),
        True,
    )
    assert Product.objects.count() == len(PRODUCTS) and not Product.objects.get(sku="OUT-007").active


def test_a_price_change_is_an_event_and_the_product_table_follows_it_in_the_same_commit(listed_catalog: None) -> None:
    outcome = services.change_price("COF-001", Decimal("13.00"), actor="user:1")

    assert [(e.type, e.data) for e in outcome.events] == [
        ("PriceChanged", {"sku": "COF-001", "from_price": "12.50", "to_price": "13.00"})
    ]
    assert row("COF-001") == ("Beans", "Coffee", "", Decimal("13.00"), True)
    assert services.change_price("COF-001", Decimal("13.00"), actor="user:1").events == []  # already so


def test_a_cart_keeps_the_price_it_captured_and_a_later_add_takes_the_new_one(
    client: Client, listed_catalog: None
) -> None:
    # A price change never changes a cart; the shopper's next add of that product puts the
    # whole line at the price the product page showed then.
    add(client, "COF-001")
    services.change_price("COF-001", Decimal("14.00"), actor="user:1")
    add(client, "KIT-001")
    services.change_price("KIT-001", Decimal("20.00"), actor="user:1")

    prices = {line["sku"]: line["unit_price"] for line in cart_row(client).lines}
    assert prices == {"COF-001": "12.50", "KIT-001": "24.00"}
    add(client, "COF-001")
    assert [e.data["unit_price"] for e in store.read_stream(f"cart-{cart_row(client).cart_id}")[1:]] == [
        "12.50",
        "24.00",
        "14.00",
    ]
    view = cart_row(client)
    assert [(line["sku"], line["quantity"], line["unit_price"]) for line in view.lines] == [
        ("COF-001", 2, "14.00"),
        ("KIT-001", 1, "24.00"),
    ]
    assert view.subtotal == Decimal("52.00")  # 2 x 14.00 + 24.00


def test_the_cart_history_shows_the_price_changes_before_each_item_added(client: Client, listed_catalog: None) -> None:
    services.change_price("COF-001", Decimal("13.00"), actor="user:1")
    add(client, "COF-001")
    services.change_price("COF-001", Decimal("15.00"), actor="user:1")  # after the add: not shown beside it
    cart_id = cart_row(client).cart_id

    page = client.get(f"/carts/{cart_id}/history/").content.decode()

    shown = page.split('class="price-history"')[1].split("</p>")[0]
    assert "ProductListed €12.50" in shown and "PriceChanged €13.00" in shown and "15.00" not in shown


def test_existing_products_from_before_the_log_are_listed_once_as_they_are() -> None:
    Product.objects.create(sku="OLD-100", name="Kettle", category="Kitchen", price=Decimal("30.00"), description="Old")
    Product.objects.create(sku="OLD-200", name="Mug", category="Kitchen", price=Decimal("8.00"), active=False)
    start = logged()

    call_command("list_existing_products", verbosity=0)
    head = logged()
    call_command("list_existing_products", verbosity=0)

    assert logged() == head == start + 3
    assert types("OLD-100") == ["ProductListed"] and types("OLD-200") == ["ProductListed", "ProductWithdrawn"]
    assert row("OLD-100") == ("Kettle", "Kitchen", "Old", Decimal("30.00"), True)
    assert row("OLD-200") == ("Mug", "Kitchen", "", Decimal("8.00"), False)


def test_the_product_table_rebuilt_from_position_0_equals_the_live_one(listed_catalog: None) -> None:
    services.edit_product("COF-001", name="Beans 1kg", category="Pantry", price=Decimal("40.00"), actor="user:1")
    services.withdraw("KIT-001", actor="user:1")
    services.edit_product("OLD-001", active=True, actor="user:1")
    before = products()

    call_command("rebuild_projection", "products", verbosity=0)

    assert products() == before
    assert before == [
        ("COF-001", "Beans 1kg", "Pantry", Decimal("40.00"), True),
        ("KIT-001", "Dripper", "Kitchen", Decimal("24.00"), False),
        ("OLD-001", "Gone", "Kitchen", Decimal("5.00"), True),
    ]


def test_the_admin_adds_and_edits_products_through_catalog_commands(client: Client, listed_catalog: None) -> None:
    staff(client)
    new = {"sku": "TEA-009", "name": "Oolong", "category": "Tea", "price": "9.00", "description": "", "active": "on"}
    assert client.post("/admin/catalog/product/add/", new).status_code == 302
    edited = {"name": "Oolong 100g", "category": "Tea", "price": "9.50", "description": "Rolled leaves."}
    assert client.post("/admin/catalog/product/TEA-009/change/", edited).status_code == 302  # unticked: withdrawn

    assert types("TEA-009") == ["ProductListed", "ProductDescribed", "PriceChanged", "ProductWithdrawn"]
    assert row("TEA-009") == ("Oolong 100g", "Tea", "Rolled leaves.", Decimal("9.50"), False)
    assert store.read_stream("product-TEA-009")[0].metadata["actor"].startswith("user:")


def test_the_admin_list_edits_prices_and_active_through_catalog_commands(client: Client, listed_catalog: None) -> None:
    staff(client)
    rows = [("COF-001", "11.00", True), ("KIT-001", "24.00", False), ("OLD-001", "5.00", True)]  # listed order
    data = {"form-TOTAL_FORMS": "3", "form-INITIAL_FORMS": "3", "_save": "Save"}
    for i, (sku, price, active) in enumerate(rows):
        data |= {f"form-{i}-sku": sku, f"form-{i}-price": price} | ({f"form-{i}-active": "on"} if active else {})

    assert client.post("/admin/catalog/product/", data).status_code == 302

    assert types("COF-001")[-1] == "PriceChanged" and row("COF-001")[3] == Decimal("11.00")
    assert types("KIT-001")[-1] == "ProductWithdrawn" and types("OLD-001")[-1] == "ProductRelisted"


def test_the_admin_shows_a_refused_edit_on_the_form_and_appends_nothing(client: Client, listed_catalog: None) -> None:
    staff(client)
    head = logged()
    form = {"name": "Beans", "category": "Coffee", "price": "0", "active": "on"}
    response = client.post("/admin/catalog/product/COF-001/change/", form)

    assert response.status_code == 200 and "A price is a positive amount in cents" in response.content.decode()
    assert logged() == head and row("COF-001")[3] == Decimal("12.50")
    assert client.get("/admin/catalog/product/COF-001/delete/").status_code == 403  # withdraw instead
