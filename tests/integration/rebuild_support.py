"""Helpers of the rebuild tests: a shop's worth of log, an async test view, row snapshots.

The log comes from the command layer (carts.services), so it holds what the
shop writes: starts, adds, quantity changes (also to 0), removals, checkouts.
"""

import random
from typing import Any

from django.db import connection

from carts import services
from carts.handler import Context, load
from catalog.models import Product
from consumers import registry as consumer_registry
from consumers import runner
from consumers.transports import TableTransport
from eventlog import store
from kernel.principal import Principal


def skus() -> list[str]:
    return list(Product.objects.filter(active=True).order_by("sku").values_list("sku", flat=True)[:8])


def shop(carts: int, seed: int = 1) -> list[str]:
    """Run `carts` random shopping sessions; return the cart ids."""
    rng, catalog, ids = random.Random(seed), skus(), []
    for n in range(carts):
        ids.append(session(rng, catalog, Context(actor=Principal.parse(f"user:{n % 7}"))))
    return ids


def session(rng: random.Random, catalog: list[str], context: Context) -> str:
    cart_id = services.start_cart(context).state.cart_id
    chosen = rng.sample(catalog, rng.randint(1, 4))
    for sku in chosen:
        services.add_to_cart(context, cart_id, sku, rng.randint(1, 3))
    for sku in chosen:
        roll = rng.random()
        if roll < 0.3:
            services.update_quantity(context, cart_id, sku, rng.randint(0, 5))
        elif roll < 0.4:
            services.remove_from_cart(context, cart_id, sku)
    if rng.random() < 0.4 and _has_items(cart_id):
        services.checkout(context, cart_id)
    return cart_id


def _has_items(cart_id: str) -> bool:
    return load(cart_id).item_count > 0


def rows(table: str, key: str) -> dict[Any, dict[str, Any]]:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{table}"')
        columns = [column[0] for column in cursor.description]
        return {row[key]: row for row in (dict(zip(columns, values, strict=True)) for values in cursor.fetchall())}


def drain_consumers(deadline: float = 30.0) -> None:
    """What `run_consumers --once` does for the async projections, until each has read the last event.

    On PostgreSQL a gap-safe read stops before the oldest transaction still
    running anywhere on the server (transaction ids are cluster-wide: another
    test database's open transaction counts), so one drain may end early.
    """
    import time

    from consumers import checkpoints

    last = store.head_position()
    give_up = time.monotonic() + deadline
    for consumer in consumer_registry.projection_consumers():
        while True:
            runner.drain(consumer, TableTransport())
            if checkpoints.position(consumer.name) >= _last_position(consumer.categories, last):
                break
            assert time.monotonic() < give_up, f"{consumer.name} never read up to {last}"
            time.sleep(0.05)


def _last_position(categories: tuple[str, ...], up_to: int) -> int:
    where = " OR ".join("stream_id LIKE %s" for _ in categories) or "TRUE"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COALESCE(MAX(position), 0) FROM eventlog_event WHERE position <= %s AND ({where})",
            [up_to, *(f"{category}-%" for category in categories)],
        )
        return int(cursor.fetchone()[0])


def drop_tables(*tables: str) -> None:
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f'DROP TABLE IF EXISTS "{table}"')


def register_item_counts(monkeypatch: Any) -> Any:
    """Add the async test view to the registry with its table; returns the module."""
    from projections import registry

    from . import rebuild_item_counts as module

    drop_tables(module.TABLE, f"{module.TABLE}__rebuild", f"{module.TABLE}__retired")
    module.create_table()
    monkeypatch.setattr(registry, "ASYNC", [*registry.ASYNC, module])
    return module
