"""The join's counting rule, without a database: each cart event goes to the category
the lookup gives for its SKU *at its position* (the lookup stands in for the product
streams folded up to there)."""

from decimal import Decimal

from carts import events as e
from projections.category_activity import deltas
from tests.integration.recorded_events import recorded

# COF-001 was Coffee until log position 10, Pantry from then on.
HISTORY = {"COF-001": [(0, "Coffee"), (10, "Pantry")], "KIT-001": [(0, "Kitchen")]}


def category_at(sku: str, position: int) -> str:
    return [category for since, category in HISTORY[sku] if since < position][-1]


def test_each_event_counts_under_the_category_of_its_own_position() -> None:
    line = {"sku": "COF-001", "quantity": 3, "unit_price": "12.50", "line_total": "37.50"}
    order = e.CheckedOut(order_id="o", lines=[line], subtotal=Decimal("37.50"), total=Decimal("37.50"))
    events = [
        recorded(5, "cart-a", 2, e.ItemAdded(sku="COF-001", quantity=3, unit_price=Decimal("12.50"))),
        recorded(6, "cart-a", 3, e.ItemAdded(sku="KIT-001", quantity=1, unit_price=Decimal("24.00"))),
        recorded(7, "cart-a", 4, e.ItemRemoved(sku="KIT-001")),
        recorded(8, "cart-a", 5, order),
        recorded(12, "cart-b", 2, e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("12.50"))),
        recorded(13, "cart-b", 3, e.ItemQuantityChanged(sku="COF-001", from_quantity=1, to_quantity=2)),
    ]

    assert deltas(events, category_at) == {
        "Coffee": {"items_added": 1, "items_removed": 0, "units_checked_out": 3, "last_position": 8},
        "Kitchen": {"items_added": 1, "items_removed": 1, "units_checked_out": 0, "last_position": 7},
        "Pantry": {"items_added": 1, "items_removed": 0, "units_checked_out": 0, "last_position": 12},
    }
