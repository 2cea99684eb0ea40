"""A made-up cart event archive in the archive's exact Parquet layout: the Spark benchmark's
data, and the training run of the driver's class archive (spark_jobs/class_archive.py).

The simulator writes through the real log (about 6k events/s in bulk mode on
PostgreSQL), too slow for 5M events in a benchmark run; this writes the same
shape of data straight to Parquet: carts started over 30 days, 0-5 adds from a
40-SKU catalog with planted pairs (BOK-001 -> BOK-006, KIT-001 -> KIT-002),
quantity changes, removals, and checkouts with lines and totals. Deterministic
for a seed. Layout and schema: analytics/archive_files.py (events/event_date=.../,
_checkpoint.json), the typed cart columns included.
"""

import json
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from spark_jobs.archive_layout import cart_values

SCHEMA = pa.schema(
    [
        ("position", pa.int64()), ("event_id", pa.string()), ("stream_id", pa.string()), ("version", pa.int32()),
        ("type", pa.string()), ("schema_version", pa.int32()), ("data", pa.string()), ("metadata", pa.string()),
        ("occurred_at", pa.timestamp("us", tz="UTC")), ("recorded_at", pa.timestamp("us", tz="UTC")),
        ("cart_owner", pa.string()), ("cart_sku", pa.string()), ("cart_quantity", pa.int32()),
        ("cart_unit_price", pa.decimal128(12, 2)), ("cart_from_quantity", pa.int32()), ("cart_to_quantity", pa.int32()),
        ("cart_total", pa.decimal128(12, 2)),
        ("cart_lines", pa.list_(pa.struct([("sku", pa.string()), ("quantity", pa.int32())]))),
    ]
)  # fmt: skip
CATEGORIES: tuple[str, ...] = ("BOK", "KIT", "COF", "OUT")
SKUS = [f"{c}-{n:03d}" for c in CATEGORIES for n in range(1, 11)]
PRICES = {sku: 5 + (i * 7) % 60 for i, sku in enumerate(SKUS)}
PLANTED = {"BOK-001": ("BOK-006", 0.7), "KIT-001": ("KIT-002", 0.6)}
DAYS = 30
START = datetime(2026, 1, 1, tzinfo=UTC)


def catalog_rows() -> list[tuple[str, str, str, str]]:
    return [(sku, f"Product {sku}", sku[:3], f"{PRICES[sku]}.00") for sku in SKUS]


def catalog_path(root: Path) -> Path:
    """Where `generate` writes the catalog: beside the events, as analytics.pipeline exports it."""
    return root / "catalog" / "catalog.parquet"


def write_catalog(root: Path) -> Path:
    """The catalog as the jobs read it (sku, name, category, price), one Parquet file."""
    rows = catalog_rows()
    table = pa.table(
        {
            "sku": [r[0] for r in rows],
            "name": [r[1] for r in rows],
            "category": [r[2] for r in rows],
            "price": pa.array([Decimal(r[3]) for r in rows], type=pa.decimal128(12, 2)),
        }
    )
    path = catalog_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def generate(root: Path, events: int, seed: int = 1) -> int:
    """Write about `events` events (whole carts) under `root`; returns the exact count written."""
    rng = random.Random(seed)
    per_day = events // DAYS
    position = 0
    for day in range(DAYS):
        rows: list[tuple[object, ...]] = []
        target = per_day if day < DAYS - 1 else events - position
        while len(rows) < target:
            rows.extend(_cart(rng, START + timedelta(days=day, seconds=rng.randrange(86_000)), position + len(rows)))
        if rows:  # whole carts overshoot each day's share: a small archive can be full before the last day
            position = _write_day(root, START + timedelta(days=day), rows)
    checkpoint = {"position": position, "events": position, "typed_from": 1}  # every part has the typed columns
    (root / "_checkpoint.json").write_text(json.dumps(checkpoint))
    write_catalog(root)
    return position


def _cart(rng: random.Random, at: datetime, before: int) -> list[tuple[object, ...]]:
    cart = f"cart-{rng.getrandbits(128):032x}"
    out: list[tuple[object, ...]] = []

    def emit(type_: str, data: dict[str, object], when: datetime) -> None:
        position = before + len(out) + 1
        text = json.dumps(data)
        out.append(
            (position, f"{position:032x}", cart, len(out) + 1, type_, 1, text, "{}", when, when,
             *cart_values(json.loads(text)))
        )  # fmt: skip

    emit("CartStarted", {"owner": f"anon:{rng.randrange(200_000)}"}, at)
    lines: dict[str, int] = {}
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4, 5))):
        at += timedelta(seconds=rng.randrange(20, 600))
        sku = rng.choice(SKUS)
        picks = [sku] + ([PLANTED[sku][0]] if sku in PLANTED and rng.random() < PLANTED[sku][1] else [])
        for pick in picks:
            if pick in lines:
                emit(
                    "ItemQuantityChanged",
                    {"sku": pick, "from_quantity": lines[pick], "to_quantity": lines[pick] + 1},
                    at,
                )
                lines[pick] += 1
            else:
                emit("ItemAdded", {"sku": pick, "quantity": 1, "unit_price": f"{PRICES[pick]}.00"}, at)
                lines[pick] = 1
    if lines and rng.random() < 0.15:
        at += timedelta(seconds=rng.randrange(10, 300))
        removed = rng.choice(sorted(lines))
        emit("ItemRemoved", {"sku": removed}, at)
        del lines[removed]
    if lines and rng.random() < 0.45:
        at += timedelta(seconds=rng.randrange(30, 3600))
        order = [{"sku": s, "quantity": q, "unit_price": f"{PRICES[s]}.00", "line_total": f"{PRICES[s] * q}.00"}
                 for s, q in sorted(lines.items())]  # fmt: skip
        total = f"{sum(PRICES[s] * q for s, q in lines.items())}.00"
        emit("CheckedOut", {"order_id": cart[5:], "lines": order, "subtotal": total, "discount": "0", "total": total,
                            "coupon": None}, at)  # fmt: skip
    return out


def _write_day(root: Path, day: datetime, rows: list[tuple[object, ...]]) -> int:
    folder = root / "events" / f"event_date={day.date().isoformat()}"
    folder.mkdir(parents=True, exist_ok=True)
    columns = list(zip(*rows, strict=True))
    table = pa.table(
        [pa.array(col, type=field.type) for col, field in zip(columns, SCHEMA, strict=True)], schema=SCHEMA
    )
    first, last = int(rows[0][0]), int(rows[-1][0])  # type: ignore[call-overload]
    pq.write_table(table, folder / f"part-{first:012d}-{last:012d}.parquet")
    return last
