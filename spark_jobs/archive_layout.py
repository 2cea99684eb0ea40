"""The event archive's layout on disk: the contract between the archiver and the Spark jobs.

Django-free, so the archiver (analytics/archive_files.py) and every Spark job
(driver or `spark-submit`) import the same names:

    <root>/events/event_date=YYYY-MM-DD/part-<first:012d>-<last:012d>.parquet
    <root>/_checkpoint.json   {"position": N, "events": total, "updated_at": iso,
                               "last_event_id": the event at N}

Names starting with `.` or `_` are skipped by Parquet readers (Spark, DuckDB):
half-written files and the checkpoint never look like data.
"""

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

EVENTS_DIR = "events"
CHECKPOINT_FILE = "_checkpoint.json"
PARTITION_PREFIX = "event_date="
PART_NAME = re.compile(r"^part-(?P<first>\d{12})-(?P<last>\d{12})\.parquet$")
# The columns of every part file, in order (types: analytics/archive_files.SCHEMA).
COLUMNS = (
    "position", "event_id", "stream_id", "version", "type", "schema_version",
    "data", "metadata", "occurred_at", "recorded_at",
)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class ArchiveCheckpoint:
    """The last log position the archive holds, and how many events it holds in all."""

    position: int = 0
    events: int = 0
    updated_at: str | None = None
    # The id of the event at `position`: ties the archive to the log it was written from.
    last_event_id: str | None = None


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
    )
