"""`abandoned_carts`: every cart's last activity in event time, and which are abandoned now.

An async projection (a consumer feeds it). The rule lives in `projections/abandonment.py`;
this module keeps one row per cart and, after each batch, marks the carts the
watermark has passed. The watermark is derived from the rows themselves (the
latest activity of any cart, minus the allowed lateness), so the table is the
whole state and a rebuild from position 0 gives the same rows as running live.
"""

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connections
from django.utils.dateparse import parse_datetime

from carts import streams
from carts.events import CartEvent, ItemAdded, ItemQuantityChanged, ItemRemoved
from eventlog.records import RecordedEvent

from .abandonment import Activity, Line, Rule, Watch, is_abandoned, observe

NAME = "abandoned_carts"
# 2: a line is worth the price of its latest add, as the cart's own fold prices it;
# `run_consumers` rebuilds a live table of version 1.
VERSION = 2
TABLE = "projection_abandoned_carts"
KEY = "cart_id"
CATEGORIES: tuple[str, ...] = ("cart",)

COLUMNS = (
    "cart_id", "lines", "open", "item_count", "value", "last_activity_at", "abandoned", "recoveries", "version",
    "last_position",
)  # fmt: skip


def rule() -> Rule:
    """The rule as configured (a change of either setting needs a rebuild of this view)."""
    return Rule(
        after=timedelta(seconds=settings.ABANDONED_CART_AFTER_SECONDS),
        lateness=timedelta(seconds=settings.ABANDONED_CART_LATENESS_SECONDS),
    )


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default") -> None:
    cart_events = [e for e in events if e.category == "cart" and isinstance(e.domain_event, CartEvent)]
    if not cart_events:
        return
    connection, the_rule = connections[using], rule()
    stored = _load(connection, table, sorted({streams.cart_id(e.stream_id) for e in cart_events}))
    changed: dict[str, tuple[Watch, int, int]] = {}
    for event in cart_events:
        cart_id = streams.cart_id(event.stream_id)
        watch, version, _ = changed.get(cart_id) or stored.get(cart_id) or (Watch(), 0, 0)
        if event.version <= version:
            continue  # delivered before: the row already holds it
        changed[cart_id] = (observe(watch, activity(event), the_rule), event.version, event.position)
    if not changed:
        return
    latest = max(
        filter(None, [_latest_activity(connection, table), *(w.last_activity_at for w, _, _ in changed.values())])
    )
    watermark = the_rule.watermark(latest)
    _upsert(
        connection,
        table,
        [_row(cid, w, v, p, is_abandoned(w, watermark, the_rule), connection) for cid, (w, v, p) in changed.items()],
    )
    _mark_passed(connection, table, watermark, the_rule)


def activity(event: RecordedEvent) -> Activity:
    match event.domain_event:
        case ItemAdded(sku=sku, quantity=quantity, unit_price=price):
            return Activity(
                type=event.type, occurred_at=event.occurred_at, sku=sku, quantity=quantity, unit_price=price
            )
        case ItemQuantityChanged(sku=sku, to_quantity=quantity):
            return Activity(type=event.type, occurred_at=event.occurred_at, sku=sku, to_quantity=quantity)
        case ItemRemoved(sku=sku):
            return Activity(type=event.type, occurred_at=event.occurred_at, sku=sku)
    return Activity(type=event.type, occurred_at=event.occurred_at)


def _load(connection: Any, table: str, cart_ids: list[str]) -> dict[str, tuple[Watch, int, int]]:
    placeholders = ", ".join(["%s"] * len(cart_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT cart_id, lines, open, last_activity_at, recoveries, version, last_position FROM {table} "
            f"WHERE cart_id IN ({placeholders})",
            cart_ids,
        )
        return {
            cart_id: (
                Watch(lines=_lines(lines), open=bool(open_), last_activity_at=_time(last), recoveries=recoveries),
                version,
                position,
            )
            for cart_id, lines, open_, last, recoveries, version, position in cursor.fetchall()
        }


def _latest_activity(connection: Any, table: str) -> datetime | None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT MAX(last_activity_at) FROM {table}")
        row = cursor.fetchone()
    return _time(row[0]) if row else None


def _mark_passed(connection: Any, table: str, watermark: datetime | None, the_rule: Rule) -> None:
    """Carts this batch did not touch that the moved watermark has now passed. A cart is only
    ever un-marked by its own events (its activity moves), and those rows were just written."""
    if watermark is None:
        return
    quiet_since = connection.ops.adapt_datetimefield_value(watermark - the_rule.after)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET abandoned = %s WHERE abandoned = %s AND open = %s AND item_count > 0 "
            "AND last_activity_at <= %s",
            [True, False, True, quiet_since],
        )


def _row(cart_id: str, watch: Watch, version: int, position: int, abandoned: bool, connection: Any) -> list[Any]:
    lines = [[line.sku, line.quantity, str(line.unit_price)] for line in watch.lines]
    return [
        cart_id, json.dumps(lines), watch.open, watch.item_count, str(watch.value),
        connection.ops.adapt_datetimefield_value(watch.last_activity_at), abandoned, watch.recoveries,
        version, position,
    ]  # fmt: skip


def _upsert(connection: Any, table: str, rows: list[list[Any]]) -> None:
    updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != KEY)
    sql = (
        f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))}) "
        f"ON CONFLICT ({KEY}) DO UPDATE SET {updates}"
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _lines(raw: Any) -> tuple[Line, ...]:
    items = raw if isinstance(raw, list) else json.loads(raw)
    return tuple(Line(sku=sku, quantity=quantity, unit_price=Decimal(price)) for sku, quantity, price in items)


def _time(value: Any) -> datetime | None:
    """PostgreSQL hands a datetime column back aware; SQLite naive (in UTC) or as text."""
    if value is None:
        return None
    parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
    if parsed is None:
        raise ValueError(f"not a datetime: {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def abandoned_now(using: str = "default") -> dict[str, Any]:
    """What staff read: the abandoned carts (most valuable first), recoveries, the watermark."""
    from .models import AbandonedCart

    rows = AbandonedCart.objects.using(using)
    carts = list(
        rows.filter(abandoned=True).order_by("-value", "cart_id").values("cart_id", "value", "last_activity_at")
    )
    recovered = sum(rows.values_list("recoveries", flat=True))
    latest = rows.order_by("-last_activity_at").values_list("last_activity_at", flat=True).first()
    seen = len(carts) + recovered
    return {
        "carts": carts,
        "value": sum((cart["value"] for cart in carts), Decimal("0.00")),
        "recovered": recovered,
        "recovery_rate": round(recovered / seen, 4) if seen else 0.0,
        "watermark": rule().watermark(latest),
    }
