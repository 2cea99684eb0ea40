"""`--verify`: what the rebuilt shadow would change in the live view, row by row, by KEY.

Each difference names the row and the fields that differ (`compare`, run while
the live view's writers are held off), then the events behind it (`explain`,
run after that transaction: reading a stream per row under the lock held the
shop's appends for over a minute when 43,000 rows differed). A projection may
say which streams make a row with `source_streams(row)`; a projection of one
category whose key names a stream ("<category>-<key>") gets that stream; any
other row (a count over many streams) names only the last event that changed
it (its `last_position`), as one line, not as a stream behind the row.
"""

from dataclasses import dataclass, field, replace
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
    streams: dict[str, list[SourceEvent]] = field(default_factory=dict)  # the streams that make the row
    last: tuple[str, SourceEvent] | None = None  # else: the last event that changed it, and its stream
    row: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # rebuilt (or live) row


def compare(projection: Projection, shadow_table: str, *, using: str = "default") -> list[RowDifference]:
    """Every row that differs between the live table and `shadow_table`, in KEY order; no events yet (`explain`)."""
    live, shadow = _rows(projection.TABLE, projection.KEY, using), _rows(shadow_table, projection.KEY, using)
    differences = []
    # Python orders the keys, not the database: collations differ between backends.
    for key in sorted(live.keys() | shadow.keys()):
        before, after = live.get(key), shadow.get(key)
        if before != after:
            differences.append(_difference(key, before, after))
    return differences


def explain(
    projection: Projection, differences: list[RowDifference], up_to: int, *, using: str = "default"
) -> list[RowDifference]:
    """`differences` with the events behind each row, up to position `up_to` (where both sides were compared).

    Only reads the log, whose events never change: call it after the comparing transaction."""
    return [_explained(projection, difference, up_to, using) for difference in differences]


def _explained(projection: Projection, difference: RowDifference, up_to: int, using: str) -> RowDifference:
    streams = _own_streams(projection, difference.row, using)
    if streams is not None:
        found = {stream: [_source(e) for e in store.read_stream(stream, using=using)] for stream in streams}
        return replace(difference, streams={s: [e for e in found[s] if e.position <= up_to] for s in streams})
    return replace(difference, last=_last_event(projection, difference.row, using))


def _rows(table: str, key: str, using: str) -> dict[Any, dict[str, Any]]:
    with connections[using].cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{table}"')
        columns = [column[0] for column in cursor.description]
        rows = (dict(zip(columns, values, strict=True)) for values in cursor.fetchall())
        return {row[key]: row for row in rows}


def _difference(key: Any, before: dict[str, Any] | None, after: dict[str, Any] | None) -> RowDifference:
    row = after or before or {}
    if before is None or after is None:
        return RowDifference(key=str(key), kind="only_live" if after is None else "only_shadow", row=row)
    changed = {column: (before[column], after.get(column)) for column in before if before[column] != after.get(column)}
    return RowDifference(key=str(key), kind="differs", fields=changed, row=row)


def _own_streams(projection: Projection, row: dict[str, Any], using: str) -> list[str] | None:
    """The streams that make `row`, when they are known; None for a row made by many (a count per SKU)."""
    if hasattr(projection, "source_streams"):
        return list(projection.source_streams(row))
    if len(projection.CATEGORIES) == 1:
        stream = f"{projection.CATEGORIES[0]}-{row[projection.KEY]}"
        if store.stream_version(stream, using=using):
            return [stream]
    return None


def _last_event(projection: Projection, row: dict[str, Any], using: str) -> tuple[str, SourceEvent] | None:
    """The event at the row's `last_position`, if it is one the projection reads: a row only the live
    view has may carry any number (a bug wrote it), and the report named a product's event as what
    last changed a count of cart events."""
    if row.get("last_position") is None:
        return None
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT stream_id, position, event_id, version, type FROM eventlog_event WHERE position = %s",
            [row["last_position"]],
        )
        found = cursor.fetchone()
    if not found:
        return None
    stream, position, event_id, version, type_ = found
    if stream.split("-", 1)[0] not in projection.CATEGORIES:
        return None
    return stream, SourceEvent(position=int(position), event_id=str(event_id), version=int(version), type=type_)


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
        if difference.last is not None:
            stream, e = difference.last
            lines.append(f"    last changed by #{e.position} v{e.version} {e.type} {e.event_id} of {stream}")
    lines.append(f"{projection.NAME}: {len(differences)} row(s) differ{summary(differences)}")
    return lines


def summary(differences: list[RowDifference]) -> str:
    """ " (item_count: 32, total: 5; 2 only in the rebuild)": how many rows each column changes in, and the
    rows one side lacks; the one line to read when thousands of rows differ."""
    columns: dict[str, int] = {}
    for difference in differences:
        for column in difference.fields:
            columns[column] = columns.get(column, 0) + 1
    parts = [", ".join(f"{column}: {count}" for column, count in sorted(columns.items(), key=lambda c: -c[1]))]
    for kind in ("only_shadow", "only_live"):
        if count := sum(1 for d in differences if d.kind == kind):
            parts.append(f"{count} {_kind_text(kind)}")
    text = "; ".join(part for part in parts if part)
    return f" ({text})" if text else ""


def _kind_text(kind: str) -> str:
    return {"only_live": "only in the live view", "only_shadow": "only in the rebuild", "differs": "differs"}[kind]
