"""The cart on the `eventsourcing` library, for comparison only (bench/workloads.py).

Written the way the library's documentation writes aggregates: events from
decorated methods, an Application that loads and saves them.
"""

from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

MAX_LINE_QUANTITY = 99


class Cart(Aggregate):
    @event("CartStarted")
    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.lines: dict[str, int] = {}

    def add_item(self, sku: str, quantity: int, unit_price: str) -> None:
        if not 1 <= self.lines.get(sku, 0) + quantity <= MAX_LINE_QUANTITY:
            raise ValueError("a line holds 1..99")
        self._item_added(sku=sku, quantity=quantity, unit_price=unit_price)

    @event("ItemAdded")
    def _item_added(self, sku: str, quantity: int, unit_price: str) -> None:
        self.lines[sku] = self.lines.get(sku, 0) + quantity


class Carts(Application[UUID]):
    def start_cart(self, owner: str) -> UUID:
        cart = Cart(owner)
        self.save(cart)
        return cart.id

    def add_item(self, cart_id: UUID, sku: str, quantity: int, unit_price: str) -> None:
        cart: Any = self.repository.get(cart_id)
        cart.add_item(sku, quantity, unit_price)
        self.save(cart)
