"""Writing the event archive: Parquet part files partitioned by event date, and its checkpoint.

The layout (folders, file names, columns, checkpoint) is the contract with the
Spark jobs and lives in spark_jobs/archive_layout.py; this module writes it.

Every write lands under a dot-prefixed temporary name first and is renamed into
place, so a reader (Spark, DuckDB, which skip `.`/`_` names) never sees half a file.
"""

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq
from django.core.serializers.json import DjangoJSONEncoder

from carts import streams as cart_streams
from eventlog.records import RecordedEvent
from spark_jobs.archive_layout import (
    CART_COLUMNS,
    CHECKPOINT_FILE,
    COLUMNS,
    PART_NAME,
    PARTITION_PREFIX,
    ArchiveCheckpoint,
    cart_values,
    part_name,
    partition_dir,
)
from spark_jobs.archive_layout import events_dir as layout_events_dir

TIMESTAMP = pa.timestamp("us", tz="UTC")
MONEY = pa.decimal128(12, 2)
SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("event_id", pa.string()),
        ("stream_id", pa.string()),
        ("version", pa.int32()),
        ("type", pa.string()),
        ("schema_version", pa.int32()),
        ("data", pa.string()),  # JSON text, upcast to the type's current schema version
        ("metadata", pa.string()),  # JSON text
        ("occurred_at", TIMESTAMP),
        ("recorded_at", TIMESTAMP),
        # CART_COLUMNS: cart events' data fields typed, so the jobs read them without parsing JSON.
        ("cart_owner", pa.string()),
        ("cart_sku", pa.string()),
        ("cart_quantity", pa.int32()),
        ("cart_unit_price", MONEY),
        ("cart_from_quantity", pa.int32()),
        ("cart_to_quantity", pa.int32()),
        ("cart_total", MONEY),
        ("cart_lines", pa.list_(pa.struct([("sku", pa.string()), ("quantity", pa.int32())]))),
    ]
)
assert tuple(SCHEMA.names) == COLUMNS + CART_COLUMNS


@dataclass(frozen=True, kw_only=True)
class PartFile:
    path: Path
    event_date: date
    first_position: int
    last_position: int


def write_checkpoint(root: Path, checkpoint: ArchiveCheckpoint) -> None:
    """Atomically: a crash leaves either the old checkpoint or the new one, never half of one."""
    _replace_atomically(root / CHECKPOINT_FILE, json.dumps(asdict(checkpoint)).encode())


def write_parts(root: Path, events: Sequence[RecordedEvent]) -> list[PartFile]:
    """One part file per event date of `events` (in position order); returns the files written."""
    by_date: dict[date, list[RecordedEvent]] = defaultdict(list)
    for event in events:
        by_date[event.occurred_at.astimezone(UTC).date()].append(event)
    return [_write_part(root, event_date, day_events) for event_date, day_events in sorted(by_date.items())]


def _write_part(root: Path, event_date: date, events: list[RecordedEvent]) -> PartFile:
    first, last = events[0].position, events[-1].position
    folder = partition_dir(root, event_date)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / part_name(first, last)
    temporary = folder / f".{path.name}.tmp"
    with open(temporary, "wb") as handle:
        pq.write_table(to_table(events), handle)
        _sync(handle)
    os.replace(temporary, path)
    return PartFile(path=path, event_date=event_date, first_position=first, last_position=last)


def to_table(events: Sequence[RecordedEvent]) -> pa.Table:
    data = [_json(e.data) for e in events]
    columns: dict[str, list[object]] = {
        "position": [e.position for e in events],
        "event_id": [str(e.event_id) for e in events],
        "stream_id": [e.stream_id for e in events],
        "version": [e.version for e in events],
        "type": [e.type for e in events],
        "schema_version": [e.schema_version for e in events],
        "data": list(data),
        "metadata": [_json(e.metadata) for e in events],
        "occurred_at": [e.occurred_at for e in events],
        "recorded_at": [e.recorded_at for e in events],
    }
    no_values = (None,) * len(CART_COLUMNS)
    # From the JSON text as written (what a reader parsing `data` sees), not the Python values.
    typed = [
        cart_values(json.loads(text)) if e.stream_id.startswith(cart_streams.PREFIX) else no_values
        for e, text in zip(events, data, strict=True)
    ]
    for index, name in enumerate(CART_COLUMNS):
        columns[name] = [values[index] for values in typed]
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def part_files(root: Path) -> list[PartFile]:
    """Every part file in the archive, in position order."""
    parts = []
    events_dir = layout_events_dir(root)
    if not events_dir.is_dir():
        return []
    for folder in os.scandir(events_dir):
        if not (folder.is_dir() and folder.name.startswith(PARTITION_PREFIX)):
            continue
        event_date = date.fromisoformat(folder.name.removeprefix(PARTITION_PREFIX))
        for entry in os.scandir(folder.path):
            if match := PART_NAME.match(entry.name):
                parts.append(
                    PartFile(
                        path=Path(entry.path),
                        event_date=event_date,
                        first_position=int(match["first"]),
                        last_position=int(match["last"]),
                    )
                )
    return sorted(parts, key=lambda part: part.first_position)


def remove_unacknowledged(root: Path, position: int) -> list[Path]:
    """Delete what a crashed run wrote after the checkpoint: part files past it, and temporaries.

    A run writes its files before it moves the checkpoint, so every file of a
    batch the checkpoint does not cover starts after it. Deleting them and
    re-reading the log from the checkpoint writes those events exactly once.
    """
    removed = [part.path for part in part_files(root) if part.first_position > position]
    events_dir = layout_events_dir(root)
    if events_dir.is_dir():
        removed += [p for p in events_dir.glob("event_date=*/.part-*.tmp")]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def _json(value: object) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, separators=(",", ":"))


def _replace_atomically(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(content)
        _sync(handle)
    os.replace(temporary, path)


def _sync(handle: BinaryIO) -> None:
    # Part files reach the disk before the checkpoint that acknowledges them does.
    handle.flush()
    os.fsync(handle.fileno())


def now_iso() -> str:
    return datetime.now(UTC).isoformat()
