"""The cart document: what a cart looks like outside cartlog, written in one place.

Every cart endpoint of the API answers with it (docs/api.md), and the relay publishes
it, per cart, to the compacted cart-state topic: a reader of either sees the same
fields and the same amounts. Product names are the caller's to look up (the catalog's
current names), so this stays a pure function of the cart's state.
"""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .decider import CartState


def money(value: Decimal) -> str:
    """An amount as the document writes it: a string with two decimals, as DRF's DecimalField writes
    it (formatting rounds half to even, as its quantize does; one step instead of two)."""
    return f"{value:.2f}"


def cart_document(state: CartState, names: Mapping[str, str]) -> dict[str, Any]:
    """The document of `state`; `names` name every line's SKU (catalog/queries.py: product_names).
    The amounts are the decider's own (`CartState.subtotal`, `total`)."""
    items = [
        {
            "sku": line.sku,
            "name": names[line.sku],
            "quantity": line.quantity,
            "unit_price": money(line.unit_price),
            "line_total": money(line.line_total),
        }
        for line in state.lines
    ]
    return {
        "id": state.cart_id,
        "status": state.status.value,
        "items": items,
        "subtotal": money(state.subtotal),
        "discount": money(state.discount),
        "total": money(state.total),
        "coupon": state.coupon,
        "order_id": state.order_id,
        "version": state.version,
    }
