"""A cart command writes its inline views as rows with its append (projections/inline.py:
cart_rows), and cart_view is the only one. Another inline projection of cart events would be
missed by commands until it also gives its row there: this test says so first."""

from datetime import UTC, datetime
from decimal import Decimal

from carts.decider import CartState, CartStatus, Line
from eventlog.alongside import LAST_POSITION
from eventlog.records import NewEvent
from projections import cart_view, inline, registry

AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def test_cart_view_is_the_only_inline_projection_of_cart_events() -> None:
    assert [p.NAME for p in registry.inline() if "cart" in p.CATEGORIES] == [cart_view.NAME]


def test_the_cart_views_row_holds_the_state_after_and_the_appended_position() -> None:
    state = CartState(
        cart_id="c1",
        status=CartStatus.OPEN,
        owner="user:1",
        lines=(Line(sku="COF-001", quantity=2, unit_price=Decimal("12.50")),),
        version=4,
    )
    [row] = inline.cart_rows(state, [NewEvent(type="ItemAdded", data={}, occurred_at=AT)])
    assert (row.table, row.key, row.replace) == ("projection_cart_view", "cart_id", True)
    assert row.only_if == "projection_cart_view.version < excluded.version"  # a row never moves back
    values = dict(row.values)
    assert values["last_position"] is LAST_POSITION
    assert [values[c] for c in ("cart_id", "owner", "status", "item_count", "subtotal", "total", "version")] == [
        "c1", "user:1", "open", 2, "25.00", "25.00", 4,
    ]  # fmt: skip
    assert values["lines"] == '[{"sku":"COF-001","quantity":2,"unit_price":"12.50"}]'
