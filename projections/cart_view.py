"""`cart_view`: the current state of every cart, the only thing `GET /api/carts/<id>` reads.

Written inline, in the transaction of the append (read-your-writes), by the same
`apply` that a rebuild runs into a shadow table. Each row is the cart decider's
own fold (`carts.decider.fold_recorded`) of the stream, so the view can never
disagree with what the write side decides on.
"""

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol, cast

import orjson
from django.db import connections

from carts import streams
from carts.decider import CartState, CartStatus, Line, fold_recorded, initial_state
from eventlog.alongside import LAST_POSITION, Row
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores.sql import dumps

NAME = "cart_view"
# 2: a line is at the price of its latest add, a checked-out cart shows the order's lines
# (carts/decider.py: evolve); `run_consumers` rebuilds a live table of version 1.
VERSION = 2
TABLE = "projection_cart_view"
KEY = "cart_id"
CATEGORIES: tuple[str, ...] = ("cart",)

COLUMNS = (
    "cart_id", "owner", "status", "lines", "item_count", "subtotal", "discount", "total",
    "coupon", "order_id", "version", "last_position", "updated_at",
)  # fmt: skip


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default") -> None:
    """Fold `events` into `table`. Events at or below a row's version are skipped,
    so delivering an event twice changes nothing (invariant 6). A command does not
    come here: its row is written with its append (`row`)."""
    by_cart: dict[str, list[RecordedEvent]] = defaultdict(list)
    for event in events:
        if event.category == "cart":
            by_cart[streams.cart_id(event.stream_id)].append(event)
    if not by_cart:
        return
    connection = connections[using]
    # Events from version 1 on hold the whole stream up to their last: such a cart folds
    # from its initial state without reading its row back, and the upsert keeps a row that
    # is already further on (a rebuild reads far fewer rows: docs/benchmarks.md, rebuild).
    unknown = [cart_id for cart_id, evs in by_cart.items() if evs[0].version > 1]
    current = _load(connection, table, unknown) if unknown else {}
    rows = []
    for cart_id, cart_events in by_cart.items():
        state = current.get(cart_id, initial_state(cart_id))
        fresh = [event for event in cart_events if event.version > state.version]
        if fresh:
            rows.append(to_row(fold_recorded(state, fresh), fresh[-1], connection))
    _upsert(connection, table, rows)


class DecodedEvent(Protocol):
    """What `apply_decoded` reads of an event: a rebuild's lean batch (rebuilds.reader.LogEvent)."""

    @property
    def position(self) -> int: ...
    @property
    def stream_id(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def occurred_at(self) -> datetime: ...
    @property
    def domain_event(self) -> object: ...


def apply_decoded(events: Sequence[DecodedEvent], table: str = TABLE, *, using: str = "default") -> None:
    """`apply` for a rebuild's batches, read lean (rebuilds.reader): the same fold, rows and upsert.

    A cart whose first event here is not its version 1
    continues from its row in `table`, and the upsert never moves a row back.
    """
    write_folded(fold_decoded(events, table, using=using), table, using=using)


# Each cart's new state after a batch, with the last event folded into it, by cart id.
Folded = dict[str, tuple[CartState, DecodedEvent]]


def fold_decoded(
    events: Sequence[DecodedEvent],
    table: str = TABLE,
    *,
    using: str = "default",
    before: Folded | None = None,
) -> Folded:
    """The first half of `apply_decoded`: each cart's new state after `events`.

    A cart that continues from an earlier batch starts from `before` (the batch
    folded just before, which may not be written yet: a rebuild folds a batch
    while the one before is written, rebuilds.writer), else from its row in `table`.
    """
    by_cart = _by_cart(events)
    before = before or {}
    unknown = [cart_id for cart_id, evs in by_cart.items() if evs[0].version > 1 and cart_id not in before]
    loaded = _load(connections[using], table, unknown) if unknown else {}
    folded: Folded = {}
    for cart_id, cart_events in by_cart.items():
        state = before[cart_id][0] if cart_id in before else loaded.get(cart_id)
        if state is not None:
            cart_events = [event for event in cart_events if event.version > state.version]
            if not cart_events:
                continue
        folded[cart_id] = (fold_recorded(state or initial_state(cart_id), cart_events), cart_events[-1])
    return folded


def _by_cart(events: Sequence[DecodedEvent]) -> dict[str, list[DecodedEvent]]:
    by_stream: dict[str, list[DecodedEvent]] = defaultdict(list)
    for event in events:
        by_stream[event.stream_id].append(event)
    prefix = len(streams.PREFIX)
    return {stream[prefix:]: evs for stream, evs in by_stream.items() if stream.startswith(streams.PREFIX)}


def write_folded(folded: Folded, table: str = TABLE, *, using: str = "default") -> None:
    """The second half of `apply_decoded`: upsert the folded states' rows into `table`."""
    connection = connections[using]
    rows = [to_row(state, cast(RecordedEvent, last), connection) for state, last in folded.values()]
    _upsert(connection, table, rows)  # to_row reads position, occurred_at


def to_row(state: CartState, last: RecordedEvent, connection: Any) -> list[Any]:
    return _values(state, last.position, connection.ops.adapt_datetimefield_value(last.occurred_at))


def row(state: CartState, last: NewEvent) -> Row:
    """The cart's row after a command, for its append to write in the same statement
    (eventlog.alongside): `state` is what the handler folded, `last` its last new event.
    Like `apply`, it never moves a row back to an older version."""
    values = _values(state, LAST_POSITION, connections["default"].ops.adapt_datetimefield_value(last.occurred_at))
    return Row(
        table=TABLE,
        key=KEY,
        values=dict(zip(COLUMNS, values, strict=True)),
        replace=True,
        only_if=f"{TABLE}.version < excluded.version",
    )


def _values(state: CartState, last_position: object, updated_at: object) -> list[Any]:
    lines = [{"sku": line.sku, "quantity": line.quantity, "unit_price": str(line.unit_price)} for line in state.lines]
    subtotal = state.subtotal  # once: `state.total` would sum the lines again (a rebuild writes ~200,000 rows)
    return [
        state.cart_id, state.owner or "", state.status.value, dumps(lines), state.item_count,
        str(subtotal), str(state.discount), str(subtotal - state.discount), state.coupon, state.order_id,
        state.version, last_position, updated_at,
    ]  # fmt: skip


def from_row(row: dict[str, Any]) -> CartState:
    lines = row["lines"] if isinstance(row["lines"], list) else json.loads(row["lines"])
    return CartState(
        cart_id=row["cart_id"],
        status=CartStatus(row["status"]),
        owner=row["owner"] or None,
        lines=tuple(
            Line(sku=line["sku"], quantity=line["quantity"], unit_price=Decimal(line["unit_price"])) for line in lines
        ),
        version=row["version"],
        order_id=row["order_id"],
        discount=Decimal(str(row["discount"])).quantize(Decimal("0.01")),
        coupon=row["coupon"],
    )


def _load(connection: Any, table: str, cart_ids: list[str]) -> dict[str, CartState]:
    params: list[Any]
    if connection.vendor == "postgresql":  # one array parameter: no query text growing with the batch
        where, params = "cart_id = ANY(%s)", [cart_ids]
    else:
        where, params = f"cart_id IN ({', '.join(['%s'] * len(cart_ids))})", cart_ids
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(COLUMNS)} FROM {table} WHERE {where}", params)
        return {row[0]: from_row(dict(zip(COLUMNS, row, strict=True))) for row in cursor.fetchall()}


def _upsert(connection: Any, table: str, rows: list[list[Any]], chunk: int = 500) -> None:
    if connection.vendor == "postgresql" and len(rows) > BULK_ROWS:
        _upsert_bulk(connection, table, rows)
        return
    for start in range(0, len(rows), chunk):
        _upsert_chunk(connection, table, rows[start : start + chunk])


# Batches above this many rows (a rebuild, a consumer catching up) go to PostgreSQL as one
# JSON parameter: psycopg rewrites a query's placeholders on the client, and a VALUES list
# with thousands of them cost more than the insert itself (docs/benchmarks.md, rebuild).
BULK_ROWS = 50
# The bulk upsert's rows arrive as JSON arrays in COLUMNS' order; the columns that are not text are cast.
# Built from COLUMNS, so a new column cannot be read from another's place.
_NOT_TEXT = {
    "lines": "jsonb", "item_count": "integer", "subtotal": "numeric", "discount": "numeric", "total": "numeric",
    "version": "integer", "last_position": "bigint", "updated_at": "timestamptz",
}  # fmt: skip
_BULK_SELECT = ", ".join(
    f"(r->>{n})::{_NOT_TEXT[column]}" if column in _NOT_TEXT else f"r->>{n}" for n, column in enumerate(COLUMNS)
)


def _on_conflict(table: str) -> str:
    """Update a row only to a later version: a row never moves back (see `apply`)."""
    assignments = ", ".join(f"{column} = excluded.{column}" for column in COLUMNS[1:])
    return f"ON CONFLICT (cart_id) DO UPDATE SET {assignments} WHERE {table}.version < excluded.version"


def _upsert_bulk(connection: Any, table: str, rows: list[list[Any]]) -> None:
    sql = (
        f"INSERT INTO {table} ({', '.join(COLUMNS)}) SELECT {_BULK_SELECT} FROM jsonb_array_elements(%s::jsonb) r"
        f" {_on_conflict(table)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [orjson.dumps(rows).decode()])  # orjson writes datetimes as ISO 8601


def _upsert_chunk(connection: Any, table: str, rows: list[list[Any]]) -> None:
    if not rows:
        return
    values = ", ".join(["(" + ", ".join(["%s"] * len(COLUMNS)) + ")"] * len(rows))
    sql = f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES {values} {_on_conflict(table)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for row in rows for value in row])


def lock_for_writing(using: str = "default") -> None:
    """For a transaction that appends and then writes this view's rows itself (the bulk
    simulator): lock the table before the appends, the order in which a command's one write
    statement takes them (registry.written_in_the_append). Nothing to do on SQLite."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {TABLE} IN ROW EXCLUSIVE MODE")


def read(cart_id: str, *, using: str = "default") -> tuple[CartState, dict[str, Any]] | None:
    """The cart's row as (state, raw row), or None if the view has no such cart."""
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(COLUMNS)} FROM {TABLE} WHERE cart_id = %s", [cart_id])
        row = cursor.fetchone()
    if row is None:
        return None
    raw = dict(zip(COLUMNS, row, strict=True))
    return from_row(raw), raw
