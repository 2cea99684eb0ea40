"""Snapshots of a cart, so that a command folds a bounded number of events at any stream length.

The newest snapshot and the events after it are read in one statement (`load`): a
cart without a snapshot costs no extra round trip.

A snapshot is the decider's own fold of the stream at a version (`CartState`), owned
by the command side and written by the handler in the command's transaction every
`EVERY` versions (`row`, written with the append): never a view's row, which a projection bug could make wrong and
which a rebuild replaces. A command folds the newest snapshot and the events after
it (at most `EVERY` - 1 of them plus its own).

`SCHEMA` names what a snapshot means: bump it whenever `evolve` or `CartState`
change. A snapshot of another schema is ignored: the stream is folded from version 1
and a new snapshot is written at the next multiple of `EVERY`. Rebuilds, verification
and time travel (`?at_version=`) never read snapshots; they fold from version 1.
"""

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, NamedTuple, Protocol

from eventlog.alongside import Row
from eventlog.codec import DomainEvent, decode_stored
from eventlog.stores import EventStore, MemoryStore
from eventlog.stores.sql import SqlStore, dumps, loads

from .decider import CartState, CartStatus, Line, StoredEvent
from .models import CartSnapshot
from .streams import stream_id

SCHEMA = 2  # 2: a line takes the price of its latest ItemAdded; a checkout takes the order's lines
EVERY = 50


class Snapshots(Protocol):
    def load(self, cart_id: str, store: EventStore) -> tuple[CartState | None, Sequence[StoredEvent]]:
        """The newest snapshot of `cart_id` with this SCHEMA (or None), and the events after it."""
        ...

    def row(self, state: CartState) -> Row:
        """The snapshot as a row the command's append writes with it (eventlog.alongside)."""
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


class Folded(NamedTuple):
    """What folding needs of a stored event (`decider.StoredEvent`), and no more: a command's
    read takes only these columns of each event after the snapshot, and makes no
    RecordedEvent of it (its id, metadata and times are not the decider's business)."""

    version: int
    domain_event: DomainEvent | None


# The events after the snapshot (their version, type and data), and the snapshot itself as a
# row of the same shape (kind 0, first).
LOAD = """
SELECT 1, version, type, schema_version, data FROM eventlog_event
 WHERE stream_id = %s AND version > COALESCE((SELECT version FROM carts_snapshot WHERE cart_id = %s AND schema = %s), 0)
UNION ALL
SELECT 0, version, NULL, NULL, state FROM carts_snapshot
 WHERE cart_id = %s AND schema = %s
ORDER BY 1, 2
"""


def load(cart_id: str, store: EventStore) -> tuple[CartState | None, Sequence[StoredEvent]]:
    if not isinstance(store, SqlStore):
        snapshot = find(cart_id)
        return snapshot, store.read_stream(stream_id(cart_id), after_version=snapshot.version if snapshot else 0)
    rows = store.fetch(LOAD, [stream_id(cart_id), cart_id, SCHEMA, cart_id, SCHEMA])
    snapshot = from_data(loads(rows[0][4])) if rows and rows[0][0] == 0 else None
    return snapshot, [
        Folded(version, decode_stored(type_, schema_version, loads(data)))
        for kind, version, type_, schema_version, data in rows
        if kind == 1
    ]


def find(cart_id: str) -> CartState | None:
    row = CartSnapshot.objects.filter(cart_id=cart_id, schema=SCHEMA).values_list("state", flat=True).first()
    return None if row is None else from_data(row)


def row(state: CartState) -> Row:
    """An upsert written with the command's append, in its statement: it commits or fails with it."""
    values = {"cart_id": state.cart_id, "version": state.version, "schema": SCHEMA, "state": dumps(to_data(state))}
    return Row(table=CartSnapshot._meta.db_table, key="cart_id", values=values, replace=True)


class MemorySnapshots:
    """The snapshots the memory store wrote (its `tables`), for unit tests of the handler."""

    def load(self, cart_id: str, store: EventStore) -> tuple[CartState | None, Sequence[StoredEvent]]:
        tables = store.tables if isinstance(store, MemoryStore) else {}
        saved = tables.get(CartSnapshot._meta.db_table, {}).get(cart_id)
        snapshot = None if saved is None else from_data(loads(saved["state"]))
        return snapshot, store.read_stream(stream_id(cart_id), after_version=snapshot.version if snapshot else 0)

    def row(self, state: CartState) -> Row:
        return row(state)
