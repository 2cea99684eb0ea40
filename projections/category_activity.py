"""`category_activity`: per product category, items added, items removed and units checked out.

A stream-table join. Cart events carry a SKU, not a category; the category is
joined in *as it was at the event's position*: the product's own stream
(`product-<sku>`, itself a log) folded up to that position (`catalog/history.py`),
never today's product table. A category changed later leaves the counts where
they fell, and a rebuild from position 0 lands on the same rows as live, on
either transport: every event before a gap-safe batch is committed, so the fold
up to a position always sees the same events.
"""

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connections

from carts.events import CheckedOut, ItemAdded, ItemRemoved
from catalog.history import Timelines
from eventlog.records import RecordedEvent

NAME = "category_activity"
VERSION = 1
TABLE = "projection_category_activity"
KEY = "category"
CATEGORIES: tuple[str, ...] = ("cart",)

COUNTERS = ("items_added", "items_removed", "units_checked_out")
UNLISTED = "(not on the log)"  # a SKU whose product stream has no ProductListed before the event

CategoryAt = Callable[[str, int], str]


def deltas(events: Sequence[RecordedEvent], category_at: CategoryAt) -> dict[str, dict[str, int]]:
    """Pure, given `category_at(sku, position)`: what `events` add to each category's counters."""
    rows: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys((*COUNTERS, "last_position"), 0))
    for event in events:
        for sku, counter, amount in _effects(event):
            row = rows[category_at(sku, event.position)]
            row[counter] += amount
            row["last_position"] = max(row["last_position"], event.position)
    return dict(rows)


def _effects(record: RecordedEvent) -> list[tuple[str, str, int]]:
    match record.domain_event:
        case ItemAdded(sku=sku):
            return [(sku, "items_added", 1)]
        case ItemRemoved(sku=sku):
            return [(sku, "items_removed", 1)]
        case CheckedOut(lines=lines):
            return [(line["sku"], "units_checked_out", int(line["quantity"])) for line in lines]
    return []


def category_at_position(using: str = "default") -> CategoryAt:
    """The join's lookup for one batch: each product stream read once, folded per event."""
    timelines = Timelines(using=using)

    def category_at(sku: str, position: int) -> str:
        product = timelines.product_at(sku, position)
        return product.category if product.listed else UNLISTED

    return category_at


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default") -> None:
    columns = ("category", *COUNTERS, "last_position")
    added = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in COUNTERS)
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT (category) DO UPDATE SET {added}, last_position = CASE WHEN excluded.last_position > "
        f"{table}.last_position THEN excluded.last_position ELSE {table}.last_position END"
    )
    with connections[using].cursor() as cursor:
        for category, row in sorted(deltas(events, category_at_position(using)).items()):
            cursor.execute(sql, [category, *(row[c] for c in COUNTERS), row["last_position"]])


def rows(*, using: str = "default") -> list[dict[str, Any]]:
    """The view as readers get it, busiest category first."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT category, {', '.join(COUNTERS)}, last_position FROM {TABLE} ORDER BY items_added DESC, category"
        )
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
