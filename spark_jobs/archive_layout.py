"""The event archive's layout on disk: the contract between the archiver and the Spark jobs.

Django-free, so the archiver (analytics/archive_files.py) and every Spark job
(driver or `spark-submit`) import the same names:

    <root>/events/event_date=YYYY-MM-DD/part-<first:012d>-<last:012d>.parquet
    <root>/_checkpoint.json   {"position": N, "events": total, "updated_at": iso,
                               "last_event_id": the event at N, "typed_from": P}

Every event keeps its data as JSON text (`data`). Cart events also carry the fields
the jobs read as typed columns (CART_COLUMNS), so a job reads them without parsing
JSON; the other streams' rows hold nulls there. Part files written before those
columns existed lack them: `typed_from` is the first position archived with them
(absent: none was), and readers parse `data` for the events before it.

Names starting with `.` or `_` are skipped by Parquet readers (Spark, DuckDB):
half-written files and the checkpoint never look like data.
"""

import json
import re
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

EVENTS_DIR = "events"
CHECKPOINT_FILE = "_checkpoint.json"
PARTITION_PREFIX = "event_date="
PART_NAME = re.compile(r"^part-(?P<first>\d{12})-(?P<last>\d{12})\.parquet$")
# The columns of every part file, in order (types: analytics/archive_files.SCHEMA).
COLUMNS = (
    "position", "event_id", "stream_id", "version", "type", "schema_version",
    "data", "metadata", "occurred_at", "recorded_at",
)  # fmt: skip
# The cart events' data fields the jobs read, typed (money as decimal(12, 2), lines as
# sku and quantity), after COLUMNS in every part file since `typed_from`.
CART_COLUMNS = (
    "cart_owner", "cart_sku", "cart_quantity", "cart_unit_price", "cart_from_quantity", "cart_to_quantity",
    "cart_total", "cart_lines",
)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class ArchiveCheckpoint:
    """The last log position the archive holds, and how many events it holds in all."""

    position: int = 0
    events: int = 0
    updated_at: str | None = None
    # The id of the event at `position`: ties the archive to the log it was written from.
    last_event_id: str | None = None
    # The first position archived with CART_COLUMNS (None: no part file has them).
    typed_from: int | None = None


def events_dir(root: str | Path) -> Path:
    return Path(root) / EVENTS_DIR


def partition_dir(root: str | Path, event_date: date) -> Path:
    return events_dir(root) / f"{PARTITION_PREFIX}{event_date.isoformat()}"


def part_name(first: int, last: int) -> str:
    return f"part-{first:012d}-{last:012d}.parquet"


def read_checkpoint(root: str | Path) -> ArchiveCheckpoint:
    path = Path(root) / CHECKPOINT_FILE
    if not path.exists():
        return ArchiveCheckpoint()
    raw = json.loads(path.read_text())
    return ArchiveCheckpoint(
        position=int(raw["position"]),
        events=int(raw["events"]),
        updated_at=raw.get("updated_at"),
        last_event_id=raw.get("last_event_id"),
        typed_from=raw.get("typed_from"),
    )


CENT = Decimal("0.01")


def cart_values(data: Any) -> tuple[Any, ...]:
    """A cart event's CART_COLUMNS values from its data, as the jobs read them from the JSON.

    What Spark's `from_json` with common.CART_DATA_SCHEMA and the cast of money to
    decimal(12, 2) give: text kept as is (other JSON values as their JSON text), whole
    numbers for counts (anything else null), money rounded half up to cents.
    """
    if not isinstance(data, dict):
        return (None,) * len(CART_COLUMNS)
    lines = data.get("lines")
    return (
        _text(data.get("owner")),
        _text(data.get("sku")),
        _whole(data.get("quantity")),
        _money(data.get("unit_price")),
        _whole(data.get("from_quantity")),
        _whole(data.get("to_quantity")),
        _money(data.get("total")),
        [
            {"sku": _text(line.get("sku")), "quantity": _whole(line.get("quantity"))}
            if isinstance(line, dict)
            else None
            for line in lines
        ]
        if isinstance(lines, list)
        else None,
    )


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), default=str)


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31 else None


def _money(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        cents = Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError):
        return None
    return cents if cents.is_finite() and abs(cents) < Decimal(10) ** 10 else None
