"""An async projection for the rebuild tests: items and events per cart, kept by a consumer.

Shaped like every registered projection (NAME, VERSION, TABLE, KEY, CATEGORIES,
apply), with its table made by the test (`create_table`), so the async path of
a rebuild (checkpoint moved at the swap) is tested whatever the registry holds.
"""

from collections.abc import Sequence
from typing import Any

from django.db import connections

from carts.decider import fold_recorded, initial_state
from eventlog.records import RecordedEvent

NAME = "test_item_counts"
VERSION = 1
TABLE = "test_item_counts"
KEY = "cart_id"
CATEGORIES: tuple[str, ...] = ("cart",)
MODULE = __name__


def create_table(using: str = "default") -> None:
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {TABLE} (cart_id varchar(64) PRIMARY KEY, items integer NOT NULL,"
            " events integer NOT NULL, last_position bigint NOT NULL)"
        )
        cursor.execute(f"CREATE INDEX {TABLE}_items_idx ON {TABLE} (items)")


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default", **_: Any) -> None:
    connection = connections[using]
    by_cart: dict[str, list[RecordedEvent]] = {}
    for event in events:
        by_cart.setdefault(event.stream_id.removeprefix("cart-"), []).append(event)
    with connection.cursor() as cursor:
        for cart_id, cart_events in by_cart.items():
            cursor.execute(f"SELECT events FROM {table} WHERE cart_id = %s", [cart_id])
            found = cursor.fetchone()
            done = found[0] if found else 0
            fresh = [event for event in cart_events if event.version > done]
            if not fresh:
                continue
            state = fold_recorded(initial_state(cart_id), _stream_until(cart_id, fresh[-1].version, using))
            cursor.execute(
                f"INSERT INTO {table} (cart_id, items, events, last_position) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (cart_id) DO UPDATE SET items = excluded.items, events = excluded.events,"
                " last_position = excluded.last_position",
                [cart_id, state.item_count, fresh[-1].version, fresh[-1].position],
            )


def _stream_until(cart_id: str, version: int, using: str) -> list[RecordedEvent]:
    from eventlog import store

    return store.read_stream(f"cart-{cart_id}", version, using=using)
