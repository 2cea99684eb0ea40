"""`product_activity`: per SKU, how often it was added, removed, raised, lowered and bought.

Counts are additive, so a batch is folded into per-SKU deltas and added with
one upsert per SKU. An event must reach it once: the consumer's transport
drops repeats (checkpoint or per-partition position, committed with the rows).
"""

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db import connections

from carts.events import CheckedOut, ItemAdded, ItemQuantityChanged, ItemRemoved
from eventlog.records import RecordedEvent

NAME = "product_activity"
VERSION = 1
TABLE = "projection_product_activity"
KEY = "sku"
CATEGORIES: tuple[str, ...] = ("cart",)

COUNTERS = ("times_added", "times_removed", "times_raised", "times_lowered", "times_bought", "units_sold", "revenue")


def deltas(events: Sequence[RecordedEvent]) -> dict[str, dict[str, Any]]:
    """Pure: what `events` add to each SKU's counters (and the last position seen)."""
    rows: dict[str, dict[str, Any]] = defaultdict(lambda: {c: 0 for c in COUNTERS} | {"revenue": Decimal(0)})
    for event in events:
        for sku, counter, amount in _effects(event):
            rows[sku][counter] += amount
            rows[sku]["last_position"] = max(rows[sku].get("last_position", 0), event.position)
    return dict(rows)


def _effects(record: RecordedEvent) -> list[tuple[str, str, Any]]:
    match record.domain_event:
        case ItemAdded(sku=sku):
            return [(sku, "times_added", 1)]
        case ItemRemoved(sku=sku):
            return [(sku, "times_removed", 1)]
        case ItemQuantityChanged(sku=sku, from_quantity=before, to_quantity=after):
            return [(sku, "times_raised" if after > before else "times_lowered", 1)]
        case CheckedOut(lines=lines):
            effects: list[tuple[str, str, Any]] = []
            for line in lines:
                effects += [
                    (line["sku"], "times_bought", 1),
                    (line["sku"], "units_sold", line["quantity"]),
                    (line["sku"], "revenue", Decimal(line["line_total"])),
                ]
            return effects
    return []


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default") -> None:
    columns = ("sku", *COUNTERS, "last_position")
    added = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in COUNTERS)
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT (sku) DO UPDATE SET {added}, last_position = CASE WHEN excluded.last_position > "
        f"{table}.last_position THEN excluded.last_position ELSE {table}.last_position END"
    )
    with connections[using].cursor() as cursor:
        for sku, row in sorted(deltas(events).items()):
            cursor.execute(
                sql, [sku, *(str(row[c]) if c == "revenue" else row[c] for c in COUNTERS), row["last_position"]]
            )
