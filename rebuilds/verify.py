"""`--verify`: what the rebuilt shadow would change in the live view, row by row, by KEY.

Each difference names the row, the fields that differ, and the stream and the
events behind it, so the report reads as "what does my code fix change".
A projection may say which streams make a row with `source_streams(row)`;
otherwise a row's `last_position`, or "<category>-<key>" for a projection of
one category, points at its stream.
"""

from dataclasses import dataclass, field
from typing import Any

from django.db import connections

from eventlog import store
from projections.registry import Projection


@dataclass(frozen=True)
class SourceEvent:
    position: int
    event_id: str
    version: int
    type: str


@dataclass(frozen=True)
class RowDifference:
    key: str
    kind: str  # "only_live" (the rebuild drops it), "only_shadow" (it adds it), "differs"
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # column: (live, rebuilt)
    streams: dict[str, list[SourceEvent]] = field(default_factory=dict)


def compare(projection: Projection, shadow_table: str, *, using: str = "default") -> list[RowDifference]:
    """Every row that differs between the live table and `shadow_table`, in KEY order."""
    live, shadow = _rows(projection.TABLE, projection.KEY, using), _rows(shadow_table, projection.KEY, using)
    differences = []
    # Python orders the keys, not the database: collations differ between backends.
    for key in sorted(live.keys() | shadow.keys()):
        before, after = live.get(key), shadow.get(key)
        if before != after:
            row = after or before or {}
            differences.append(_difference(key, before, after, _sources(projection, row, using)))
    return differences


def _rows(table: str, key: str, using: str) -> dict[Any, dict[str, Any]]:
    with connections[using].cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{table}"')
        columns = [column[0] for column in cursor.description]
        rows = (dict(zip(columns, values, strict=True)) for values in cursor.fetchall())
        return {row[key]: row for row in rows}


def _difference(
    key: Any, before: dict[str, Any] | None, after: dict[str, Any] | None, streams: dict[str, list[SourceEvent]]
) -> RowDifference:
    if before is None or after is None:
        return RowDifference(key=str(key), kind="only_live" if after is None else "only_shadow", streams=streams)
    changed = {column: (before[column], after.get(column)) for column in before if before[column] != after.get(column)}
    return RowDifference(key=str(key), kind="differs", fields=changed, streams=streams)


def _sources(projection: Projection, row: dict[str, Any], using: str) -> dict[str, list[SourceEvent]]:
    streams = _source_streams(projection, row, using)
    return {stream: [_source(event) for event in store.read_stream(stream, using=using)] for stream in streams}


def _source_streams(projection: Projection, row: dict[str, Any], using: str) -> list[str]:
    if hasattr(projection, "source_streams"):
        return list(projection.source_streams(row))
    if len(projection.CATEGORIES) == 1:
        stream = f"{projection.CATEGORIES[0]}-{row[projection.KEY]}"
        if store.stream_version(stream, using=using):
            return [stream]
    if "last_position" in row:
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT stream_id FROM eventlog_event WHERE position = %s", [row["last_position"]])
            found = cursor.fetchone()
        return [found[0]] if found else []
    return []


def _source(event: Any) -> SourceEvent:
    return SourceEvent(position=event.position, event_id=str(event.event_id), version=event.version, type=event.type)


def report(projection: Projection, differences: list[RowDifference]) -> list[str]:
    """The human report, one block per row; the last line sums it up."""
    marks = {"only_live": "-", "only_shadow": "+", "differs": "~"}
    lines = []
    for difference in differences:
        lines.append(f"{marks[difference.kind]} {projection.KEY}={difference.key} ({_kind_text(difference.kind)})")
        for column, (live, rebuilt) in difference.fields.items():
            lines.append(f"    {column}: live {live!r} -> rebuilt {rebuilt!r}")
        for stream, events in difference.streams.items():
            lines.append(f"    stream {stream}:")
            lines.extend(f"      #{e.position} v{e.version} {e.type} {e.event_id}" for e in events)
    lines.append(f"{projection.NAME}: {len(differences)} row(s) differ")
    return lines


def _kind_text(kind: str) -> str:
    return {"only_live": "only in the live view", "only_shadow": "only in the rebuild", "differs": "differs"}[kind]
