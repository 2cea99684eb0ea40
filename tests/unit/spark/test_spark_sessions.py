"""The sessions view against sessions cut by hand: a shopper's events in time order, a new
session wherever one comes more than the gap after the one before.

Random logs on a grid of minutes, so that pauses of exactly the gap, events at the same
moment and a shopper's carts interleaving all come up; the expected sessions are computed
here in plain Python, not by the code under test.
"""

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from spark_jobs import analytics

GAP_MINUTES = 10
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
SCHEMA = T.StructType(
    [
        T.StructField("cart_id", T.StringType()),
        T.StructField("type", T.StringType()),
        T.StructField("owner", T.StringType()),
        T.StructField("occurred_at", T.TimestampType()),
    ]
)
Event = tuple[str, str, str | None, datetime | None]


def random_log(seed: int) -> list[Event]:
    rng = random.Random(seed)
    log: list[Event] = []
    for s in range(3):
        shopper = f"user:{s}"
        for c in range(rng.randint(1, 4)):
            cart = f"cart-{s}-{c}"
            t = START + timedelta(minutes=5 * rng.randint(0, 12))
            log.append((cart, "CartStarted", shopper, t))
            for _ in range(rng.randint(0, 6)):
                t += timedelta(minutes=rng.choice([0, 5, 10, 10, 15, 30]))  # 10: exactly the gap
                log.append((cart, rng.choice(["ItemAdded", "ItemAdded", "ItemRemoved", "CheckedOut"]), None, t))
            if rng.random() < 0.2:
                log.append((cart, "ItemAdded", None, None))  # no time: in no session
    log.append(("cart-orphan", "ItemAdded", None, START))  # no CartStarted: no shopper, in no session
    rng.shuffle(log)
    return log


def sessions_by_hand(log: list[Event]) -> list[tuple[Any, ...]]:
    owner = {cart: who for cart, kind, who, _ in log if kind == "CartStarted"}
    timed: dict[str | None, list[tuple[datetime, str]]] = {}
    for cart, kind, _, at in log:
        if cart in owner and at is not None:
            timed.setdefault(owner[cart], []).append((at, kind))
    rows = []
    for shopper, events in timed.items():
        events.sort()
        current = [events[0]]
        for event in events[1:]:
            if event[0] - current[-1][0] > timedelta(minutes=GAP_MINUTES):
                rows.append(_session(shopper, current))
                current = []
            current.append(event)
        rows.append(_session(shopper, current))
    return sorted(rows)


def _session(shopper: str | None, events: list[tuple[datetime, str]]) -> tuple[Any, ...]:
    checked_out = int(any(kind == "CheckedOut" for _, kind in events))
    return (shopper, events[0][0], events[-1][0], len(events), checked_out)


@pytest.mark.parametrize("seed", range(8))
def test_sessions_are_those_cut_by_hand(spark: SparkSession, seed: int) -> None:
    log = random_log(seed)
    cart = spark.createDataFrame([(c, k, o, t.replace(tzinfo=None) if t else None) for c, k, o, t in log], SCHEMA)

    rows = analytics.sessions(cart, GAP_MINUTES * 60).collect()

    got = sorted((r.shopper, r.first_at.replace(tzinfo=UTC), r.last_at.replace(tzinfo=UTC), r.events, r.checked_out)
                 for r in rows)  # fmt: skip
    assert got == sessions_by_hand(log)
