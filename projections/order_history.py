"""`order_history`: every order under the account that owned its cart when it was placed.

The web shop's "My orders" reads it. The owner comes from the cart's own stream
up to the checkout (CartStarted, then any CartOwnerChanged), read from the log:
still a pure function of the events, whatever order consumers meet them in.
"""

import json
from collections.abc import Sequence
from typing import Any

from django.db import connections

from carts import streams
from carts.decider import fold_recorded, initial_state
from carts.events import CheckedOut
from eventlog import store
from eventlog.records import RecordedEvent

NAME = "order_history"
VERSION = 1
TABLE = "projection_order_history"
KEY = "order_id"
CATEGORIES: tuple[str, ...] = ("cart",)

COLUMNS = (
    "order_id", "account", "cart_id", "lines", "subtotal", "discount", "total", "coupon", "shipping", "placed_at",
    "position",
)  # fmt: skip


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default") -> None:
    connection = connections[using]
    sql = (
        f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))}) "
        "ON CONFLICT (order_id) DO NOTHING"
    )
    with connection.cursor() as cursor:
        for event in events:
            if isinstance(checked_out := event.domain_event, CheckedOut):
                cursor.execute(sql, _row(event, checked_out, connection))


def _row(event: RecordedEvent, order: CheckedOut, connection: Any) -> list[Any]:
    cart_id = streams.cart_id(event.stream_id)
    # The owner at checkout: the fold of the stream just before this event.
    owner = fold_recorded(initial_state(cart_id), store.read_stream(event.stream_id, event.version - 1)).owner
    return [
        order.order_id, owner or "", cart_id, json.dumps(order.lines), str(order.subtotal),
        str(order.discount), str(order.total), order.coupon,
        None if order.shipping is None else json.dumps(order.shipping),  # sealed: copied, never opened
        connection.ops.adapt_datetimefield_value(event.occurred_at), event.position,
    ]  # fmt: skip
