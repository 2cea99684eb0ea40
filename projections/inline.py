"""Inline projections: written with the command's append, in its transaction.

A cart command's inline view is a row its append writes in the same statement
(`cart_rows`); the catalog's and the stock's handlers apply theirs after their
append, in their transaction (`apply`).
"""

from collections.abc import Sequence

from carts.decider import CartState
from eventlog.alongside import Row
from eventlog.records import NewEvent, RecordedEvent

from . import cart_view, registry


def apply(events: Sequence[RecordedEvent]) -> None:
    """Each projection gets only the events of its own stream categories (a product's
    events never reach the cart view, nor a stock change the product table)."""
    for projection in registry.inline():
        if mine := [event for event in events if event.category in projection.CATEGORIES]:
            projection.apply(mine)


def cart_rows(state: CartState, events: Sequence[NewEvent]) -> list[Row]:
    """The rows of a cart command's inline views, for its append (eventlog.alongside): `state`
    is the cart after the command. cart_view is the only inline projection of cart events
    (tests/unit/test_inline_rows.py keeps it so: another would need its row here)."""
    return [cart_view.row(state, events[-1])]
