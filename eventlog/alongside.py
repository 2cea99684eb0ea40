"""Rows written together with an append: on PostgreSQL, in the append's own statement.

A cart command writes more than its events: the inline view's row, every so
often a snapshot, and, when the request carried an Idempotency-Key, the record
of its outcome. Each owner describes its row as a value (`Row`: a table, the
columns and their values, what to do when the key is taken) and hands it to
`store.append(..., alongside=rows)`; the store writes the events and the rows
atomically, and nobody else's table is known to the log.

On PostgreSQL the append and the rows are ONE statement: `eventlog_append` as a
common table expression, each row an `INSERT` beside it (`to_sql`). A statement
is a transaction of its own, so a command commits in one round trip, with no
BEGIN or COMMIT around it (docs/round-trips.md). SQLite runs the same inserts
after its append, in one transaction; the memory store keeps the rows in dicts.

A row's value may be `LAST_POSITION` or `LAST_VERSION`: the position or the
stream version of the append's last event, which only the append knows.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Appended(Enum):
    """A value only the append knows: its last event's position or stream version."""

    POSITION = "out_position"
    VERSION = "out_version"


LAST_POSITION = Appended.POSITION
LAST_VERSION = Appended.VERSION


@dataclass(frozen=True)
class Row:
    """One row to write with an append, keyed by `key` (its table's unique column).

    `replace=False`: the key must be new; if another transaction holds it, the append
    fails with RowConflictError and nothing is written (an idempotency record).
    `replace=True`: an existing row is replaced (an upsert); `only_if`, an SQL
    condition on the table's row and `excluded`, limits that (a view row never
    moves back to an older version). The memory store ignores `only_if`.
    """

    table: str
    key: str
    values: Mapping[str, Any]
    replace: bool = False
    only_if: str = ""


def to_sql(row: Row, value_of: Callable[[Appended], str]) -> tuple[str, list[Any]]:
    """The row's INSERT and its parameters; `value_of` spells an appended value in SQL
    (a subquery of the append's CTE on PostgreSQL, a parameter elsewhere)."""
    columns, placeholders, params = [], [], []
    for column, value in row.values.items():
        columns.append(column)
        if isinstance(value, Appended):
            placeholders.append(value_of(value))
        else:
            placeholders.append("%s")
            params.append(value)
    sql = f"INSERT INTO {row.table} ({', '.join(columns)}) VALUES ({', '.join(placeholders)})"
    if row.replace:
        updates = ", ".join(f"{column} = excluded.{column}" for column in columns if column != row.key)
        sql += f" ON CONFLICT ({row.key}) DO UPDATE SET {updates}"
        if row.only_if:
            sql += f" WHERE {row.only_if}"
    return sql, params
