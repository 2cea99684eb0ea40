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
from functools import cache
from typing import Any, cast


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


def to_sql(
    row: Row, appended: Callable[[Appended], str] | Mapping[Appended, Any], *, when: str = ""
) -> tuple[str, list[Any]]:
    """The row's INSERT and its parameters. `appended` says how to write an appended value:
    a module-level function spells it in SQL (a subquery of the append's CTE, on PostgreSQL),
    a mapping gives its value as a parameter (the append already ran: SQLite). `when`, an SQL
    condition, writes the row only if it holds (PostgreSQL: only if the append appended)."""
    in_sql = callable(appended)
    params: list[Any] = []
    shape: list[tuple[str, Appended | None]] = []
    for column, value in row.values.items():  # one pass: a command writes a row of 13 values per append
        if type(value) is Appended:
            shape.append((column, value))
            if not in_sql:
                params.append(cast(Mapping[Appended, Any], appended)[value])
        else:
            shape.append((column, None))
            params.append(value)
    spell = cast(Callable[[Appended], str], appended) if in_sql else _parameter
    return _insert(row.table, row.key, tuple(shape), row.replace, row.only_if, spell, when), params


def _parameter(value: Appended) -> str:
    return "%s"


@cache
def _insert(
    table: str,
    key: str,
    shape: tuple[tuple[str, Appended | None], ...],
    replace: bool,
    only_if: str,
    value_of: Callable[[Appended], str],
    when: str,
) -> str:
    """The INSERT for rows of one shape, built once: a command writes the same few shapes."""
    columns = [column for column, _ in shape]
    placeholders = ", ".join("%s" if appended is None else value_of(appended) for _, appended in shape)
    # INSERT … SELECT: PostgreSQL still types each parameter by its column, as with VALUES.
    values = f"SELECT {placeholders} WHERE {when}" if when else f"VALUES ({placeholders})"
    sql = f"INSERT INTO {table} ({', '.join(columns)}) {values}"
    if replace:
        updates = ", ".join(f"{column} = excluded.{column}" for column in columns if column != key)
        sql += f" ON CONFLICT ({key}) DO UPDATE SET {updates}"
        if only_if:
            sql += f" WHERE {only_if}"
    return sql
