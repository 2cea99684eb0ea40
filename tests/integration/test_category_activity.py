"""The stream-table join: cart activity counted under the category its product had
at each event's log position, not the category it has now.

The table transport on the run's database (PostgreSQL or SQLite); Kafka (Tansu)
on PostgreSQL. Expected rows are written by hand from the story in `shop_story`.
"""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from carts import services as carts
from carts.handler import Context
from catalog import services as products
from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.models import Checkpoint, KafkaProgress
from consumers.transports import TableTransport
from eventlog import store
from kernel.principal import Principal
from projections import category_activity
from rebuilds import service
from tests.kafka_broker import Broker
from tests.kafka_helpers import drain_until, relay_everything
from tests.log_helpers import wait_until_readable

pytestmark = pytest.mark.django_db(transaction=True)

CONTEXT = Context(actor=Principal.user("1"))
# (category, items added, items removed, units checked out), busiest first
WHAT_WAS_TRUE_THEN = [
    ("Kitchen", 2, 0, 4),
    ("Coffee", 1, 0, 2),
    ("Pantry", 1, 1, 0),
]


def shop_story() -> None:
    """Beans are Coffee for the first cart and Pantry for the second; the dripper is Kitchen for both."""
    first = carts.start_cart(CONTEXT).state.cart_id
    carts.add_to_cart(CONTEXT, first, "COF-001", 2)
    carts.add_to_cart(CONTEXT, first, "KIT-001", 1)
    carts.checkout(CONTEXT, first)
    products.recategorize("COF-001", "Pantry", actor="user:1")
    second = carts.start_cart(CONTEXT).state.cart_id
    carts.add_to_cart(CONTEXT, second, "COF-001", 1)
    carts.remove_from_cart(CONTEXT, second, "COF-001")
    carts.add_to_cart(CONTEXT, second, "KIT-001", 3)
    carts.checkout(CONTEXT, second)


def change_the_past_categories() -> None:
    """After the fact: both products move; what happened in the carts does not."""
    products.recategorize("KIT-001", "Gear", actor="user:1")
    products.recategorize("COF-001", "Coffee", actor="user:1")
    products.edit_product("COF-001", price=Decimal("99.00"), actor="user:1")


def view() -> list[tuple[str, int, int, int]]:
    return [
        (r["category"], r["items_added"], r["items_removed"], r["units_checked_out"]) for r in category_activity.rows()
    ]


def drain_table() -> None:
    wait_until_readable()
    runner.drain(ProjectionConsumer(category_activity), TableTransport())


def test_each_cart_event_counts_under_the_category_of_its_position_and_a_later_change_moves_nothing(
    listed_catalog: None,
) -> None:
    shop_story()
    drain_table()
    assert view() == WHAT_WAS_TRUE_THEN

    change_the_past_categories()
    carts.add_to_cart(CONTEXT, carts.start_cart(CONTEXT).state.cart_id, "KIT-001", 1)  # a new fact, under Gear
    drain_table()

    assert view() == [("Kitchen", 2, 0, 4), ("Coffee", 1, 0, 2), ("Gear", 1, 0, 0), ("Pantry", 1, 1, 0)]


def test_a_rebuild_from_position_0_equals_the_live_view_though_every_category_changed_since(
    listed_catalog: None,
) -> None:
    shop_story()
    drain_table()
    change_the_past_categories()
    drain_table()
    live = view()

    outcome = service.rebuild(category_activity.NAME, batch_size=3)

    assert outcome.status == "swapped" and view() == live == WHAT_WAS_TRUE_THEN
    assert service.rebuild(category_activity.NAME, verify=True).differences == []


@pytest.mark.kafka
@pytest.mark.postgres
def test_on_kafka_the_join_gives_the_same_view_as_on_the_table(listed_catalog: None, kafka: Broker) -> None:
    from relay.kafka_transport import KafkaTransport

    shop_story()
    change_the_past_categories()
    relay_everything()
    head = store.head_position()
    consumer, transport = ProjectionConsumer(category_activity), KafkaTransport()
    try:

        def caught_up() -> bool:
            return KafkaProgress.objects.filter(consumer=consumer.name, position__gte=head - 3).exists()

        drain_until(consumer, transport, lambda: caught_up() and view() == WHAT_WAS_TRUE_THEN)
        for _ in range(3):  # whatever is still queued is a repeat
            runner.process_batch(consumer, transport)
    finally:
        transport.close()
    assert view() == WHAT_WAS_TRUE_THEN
    assert not Checkpoint.objects.filter(name=consumer.name).exists()  # Kafka keeps its own positions


def test_a_product_not_yet_on_the_log_counts_under_its_own_heading(catalog: None) -> None:
    cart_id = carts.start_cart(CONTEXT).state.cart_id
    carts.add_to_cart(CONTEXT, cart_id, "COF-001", 1)  # a row from before the log: no ProductListed
    drain_table()

    assert view() == [(category_activity.UNLISTED, 1, 0, 0)]


def test_staff_read_the_view_in_the_api_and_on_the_analytics_page(listed_catalog: None, client: Client) -> None:
    shop_story()
    drain_table()
    assert client.get("/api/analytics/category-activity").status_code in (401, 403)
    client.force_login(get_user_model().objects.create_superuser(username="boss", password="a-long-secret-9"))

    body = client.get("/api/analytics/category-activity").json()
    page = client.get("/staff/analytics/").content.decode()

    assert body["categories"][0] == {
        "category": "Kitchen",
        "items_added": 2,
        "items_removed": 0,
        "units_checked_out": 4,
    }
    assert [row["category"] for row in body["categories"]] == ["Kitchen", "Coffee", "Pantry"]
    assert body["covers_position"] == Checkpoint.objects.get(name=category_activity.NAME).position
    assert 'data-category="Pantry"' in page and "Category activity (live)" in page
