"""Append → view latency, the one way both benchmarks measure it (relay_bench, wakeup_bench).

One AddToCart at a time through carts.services; the clock runs from its commit
until the `product_activity` row of that SKU shows its position.
"""

import random
import time
from collections.abc import Callable


def timed(samples: int, first_wait: float = 30, poll: float = 0.002) -> list[float]:
    """Seconds from each AddToCart's commit until product_activity shows its position."""
    from django.conf import settings

    from carts import services
    from carts.handler import Context
    from kernel.principal import Principal

    context, seconds, cart_id = Context(actor=Principal.parse("user:bench")), [], ""
    for i in range(samples):
        if i % 20 == 0:
            cart_id = services.start_cart(context).state.cart_id
        time.sleep(random.uniform(0, settings.CONSUMER_POLL_SECONDS))
        sku = ("COF-001", "KIT-001")[i % 2]
        position = services.add_to_cart(context, cart_id, sku, 1).events[-1].position
        committed = time.perf_counter()
        wait_until(lambda: seen(sku) >= position, first_wait, poll)  # noqa: B023 (called before the next iteration)
        seconds.append(time.perf_counter() - committed)
    return seconds


def seen(sku: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT last_position FROM projection_product_activity WHERE sku = %s", [sku])
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def wait_until(condition: Callable[[], bool], timeout: float, poll: float) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the view did not show the event in time")
        time.sleep(poll)
