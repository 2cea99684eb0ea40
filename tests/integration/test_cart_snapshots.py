"""Cart snapshots in the database (carts/snapshots.py), on PostgreSQL and SQLite: written in the
command's transaction every 50 versions, read by the next command, ignored when their schema is
not the code's, and never what a rebuild or the cart view is built from."""

from decimal import Decimal

import pytest

from carts import services, snapshots
from carts.handler import Context, load
from carts.models import CartSnapshot
from eventlog import store
from kernel.principal import Principal
from projections.models import CartView
from rebuilds import service as rebuilds

pytestmark = pytest.mark.django_db(transaction=True)

ALICE = Context(actor=Principal.user(1))


def a_cart_with(events: int) -> str:
    """Started, one item (COF-001), then quantity changes: 2, 3, 2, 3, ..."""
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    for n in range(3, events + 1):
        services.update_quantity(ALICE, cart_id, "COF-001", 2 + n % 2)
    return cart_id


def test_a_snapshot_is_written_every_50_versions_in_the_commands_transaction(catalog: None) -> None:
    cart_id = a_cart_with(49)
    assert not CartSnapshot.objects.filter(cart_id=cart_id).exists()
    services.update_quantity(ALICE, cart_id, "COF-001", 7)  # version 50
    row = CartSnapshot.objects.get(cart_id=cart_id)
    assert (row.version, row.schema) == (50, 2)
    assert row.state["lines"] == [["COF-001", 7, "12.50"]]
    for n in range(51, 101):
        services.update_quantity(ALICE, cart_id, "COF-001", n % 5 + 1)
    assert CartSnapshot.objects.get(cart_id=cart_id).version == 100  # one row per cart, the newest


def test_a_command_after_a_snapshot_decides_on_the_same_cart_as_the_whole_stream(catalog: None) -> None:
    cart_id = a_cart_with(60)
    services.add_to_cart(ALICE, cart_id, "KIT-001", 2)
    state = load(cart_id)
    assert state.version == 61
    assert [(line.sku, line.quantity, line.unit_price) for line in state.lines] == [
        ("COF-001", 2, Decimal("12.50")),  # version 60: 2 + 60 % 2
        ("KIT-001", 2, Decimal("24.00")),
    ]
    whole = load(cart_id, up_to_version=61)  # time travel folds from version 1
    assert whole == state


def test_a_snapshot_of_another_schema_is_ignored_and_the_whole_stream_folded(catalog: None) -> None:
    cart_id = a_cart_with(50)
    # A snapshot written by older code whose fold meant something else: it must not be used.
    CartSnapshot.objects.filter(cart_id=cart_id).update(
        schema=snapshots.SCHEMA - 1, state={**CartSnapshot.objects.get(cart_id=cart_id).state, "lines": []}
    )
    assert [line.quantity for line in load(cart_id).lines] == [2]
    services.update_quantity(ALICE, cart_id, "COF-001", 9)
    assert [(line.sku, line.quantity) for line in load(cart_id).lines] == [("COF-001", 9)]


def test_a_cart_view_rebuild_never_reads_snapshots(catalog: None) -> None:
    cart_id = a_cart_with(55)
    CartSnapshot.objects.filter(cart_id=cart_id).update(state={**snapshots.to_data(load(cart_id)), "lines": []})
    assert rebuilds.rebuild("cart_view", verify=True).differences == []
    assert CartView.objects.get(cart_id=cart_id).lines[0]["quantity"] == 3  # version 55: 2 + 55 % 2
    assert len(store.read_stream(f"cart-{cart_id}", after_version=50)) == 5
