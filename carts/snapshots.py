"""Snapshots of a cart, so that a command folds a bounded number of events at any stream length.

A snapshot is the decider's own fold of the stream at a version (`CartState`), owned
by the command side and written by the handler in the command's transaction every
`EVERY` versions: never a view's row, which a projection bug could make wrong and
which a rebuild replaces. A command folds the newest snapshot and the events after
it (at most `EVERY` - 1 of them plus its own).

`SCHEMA` names what a snapshot means: bump it whenever `evolve` or `CartState`
change. A snapshot of another schema is ignored: the stream is folded from version 1
and a new snapshot is written at the next multiple of `EVERY`. Rebuilds, verification
and time travel (`?at_version=`) never read snapshots; they fold from version 1.
"""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Protocol

from .decider import CartState, CartStatus, Line
from .models import CartSnapshot

SCHEMA = 1
EVERY = 50


class Snapshots(Protocol):
    def find(self, cart_id: str) -> CartState | None:
        """The newest snapshot of `cart_id` with this SCHEMA, or None."""
        ...

    def save(self, state: CartState) -> None:
        """Written in the command's own transaction: it rolls back with the append."""
        ...


def due(before: int, after: int) -> bool:
    """Whether a command that moved a cart from version `before` to `after` passed a multiple of EVERY."""
    return after // EVERY > before // EVERY


def to_data(state: CartState) -> dict[str, Any]:
    return {
        "cart_id": state.cart_id,
        "status": state.status.value,
        "owner": state.owner,
        "lines": [[line.sku, line.quantity, str(line.unit_price)] for line in state.lines],
        "version": state.version,
        "order_id": state.order_id,
        "discount": str(state.discount),
        "coupon": state.coupon,
    }


def from_data(data: Mapping[str, Any]) -> CartState:
    return CartState(
        cart_id=data["cart_id"],
        status=CartStatus(data["status"]),
        owner=data["owner"],
        lines=tuple(
            Line(sku=sku, quantity=quantity, unit_price=Decimal(price)) for sku, quantity, price in data["lines"]
        ),
        version=data["version"],
        order_id=data["order_id"],
        discount=Decimal(data["discount"]),
        coupon=data["coupon"],
    )


# The database's snapshots: this module itself is the `Snapshots` the process uses.


def find(cart_id: str) -> CartState | None:
    row = CartSnapshot.objects.filter(cart_id=cart_id, schema=SCHEMA).values_list("state", flat=True).first()
    return None if row is None else from_data(row)


def save(state: CartState) -> None:
    CartSnapshot.objects.update_or_create(
        cart_id=state.cart_id, defaults={"version": state.version, "schema": SCHEMA, "state": to_data(state)}
    )


class MemorySnapshots:
    """Snapshots in a dict, for unit tests of the handler on the in-memory store."""

    def __init__(self) -> None:
        self.saved: dict[str, dict[str, Any]] = {}

    def find(self, cart_id: str) -> CartState | None:
        data = self.saved.get(cart_id)
        return None if data is None else from_data(data)

    def save(self, state: CartState) -> None:
        self.saved[state.cart_id] = to_data(state)
