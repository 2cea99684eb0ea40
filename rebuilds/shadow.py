"""Shadow tables: an empty copy of a live projection table, and the swap that puts it live.

The copy has the live table's columns, constraints and indexes, so the
projection's own `apply` fills it exactly as it fills the live one. The swap is
three renames and a drop inside the caller's transaction: readers see the old
table or the new one, never neither. Index names follow the table back to the
live names, so every rebuild leaves the schema as migrations made it.
"""

import re
from typing import Any

from django.db import connections


def shadow_name(table: str) -> str:
    return f"{table}__rebuild"


def retired_name(table: str) -> str:
    return f"{table}__retired"


def exists(table: str, *, using: str = "default") -> bool:
    connection = connections[using]
    with connection.cursor() as cursor:
        return table in connection.introspection.table_names(cursor)


def drop(table: str, *, using: str = "default") -> None:
    with connections[using].cursor() as cursor:
        cursor.execute(f'DROP TABLE IF EXISTS "{table}"')


def create(live: str, shadow: str, *, using: str = "default") -> None:
    """Create `shadow` empty, shaped like `live` (any leftover of that name is dropped first)."""
    drop(shadow, using=using)
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f'CREATE TABLE "{shadow}" (LIKE "{live}" INCLUDING ALL)')
            return
        for sql in _sqlite_copy(cursor, live, shadow):
            cursor.execute(sql)


def _sqlite_copy(cursor: Any, live: str, shadow: str) -> list[str]:
    cursor.execute("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = %s AND sql IS NOT NULL", [live])
    statements: list[str] = []
    for kind, name, sql in cursor.fetchall():
        if kind == "table":
            statements.insert(0, re.sub(r'^CREATE TABLE\s+"?\w+"?', f'CREATE TABLE "{shadow}"', sql))
        elif kind == "index":
            head = r'INDEX\s+"?' + re.escape(name) + r'"?\s+ON\s+"?' + re.escape(live) + '"?'
            statements.append(re.sub(head, f'INDEX "{_shadow_index(name, shadow)}" ON "{shadow}"', sql, count=1))
    return statements


def _shadow_index(name: str, shadow: str) -> str:
    # SQLite's index names are one namespace for the whole database: named after the copy too,
    # so two copies of one table (a rebuild's shadow, the fault lab's mirror) never collide.
    return f"{name}__{shadow}"


def swap(live: str, shadow: str, *, using: str = "default") -> None:
    """Put `shadow` in the place of `live` and drop the old table; call inside a transaction."""
    connection = connections[using]
    retired = retired_name(live)
    with connection.cursor() as cursor:
        live_indexes = _indexes(cursor, connection, live)
        cursor.execute(f'DROP TABLE IF EXISTS "{retired}"')
        cursor.execute(f'ALTER TABLE "{live}" RENAME TO "{retired}"')
        cursor.execute(f'ALTER TABLE "{shadow}" RENAME TO "{live}"')
        cursor.execute(f'DROP TABLE "{retired}"')
        _restore_index_names(cursor, connection, live, live_indexes)


def _indexes(cursor: Any, connection: Any, table: str) -> dict[str, str]:
    """{shape of the index definition: index name}; the shape leaves out both names."""
    if connection.vendor == "postgresql":
        cursor.execute(
            "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index"
            " WHERE indrelid = %s::regclass",
            [f'"{table}"'],
        )
    else:
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s", [table])
    return {_shape(sql): name.strip('"') for name, sql in cursor.fetchall() if sql}


def _shape(definition: str) -> str:
    return re.sub(r"INDEX\s+\S+\s+ON\s+\S+", "INDEX ON", definition, count=1)


def _restore_index_names(cursor: Any, connection: Any, table: str, wanted: dict[str, str]) -> None:
    for shape, name in _indexes(cursor, connection, table).items():
        original = wanted.get(shape)
        if original is None or original == name:
            continue
        if connection.vendor == "postgresql":
            # Renaming the index behind a primary key or unique constraint renames the constraint too.
            cursor.execute(f'ALTER INDEX "{name}" RENAME TO "{original}"')
        else:  # SQLite cannot rename an index: recreate it under its own name
            cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = %s", [name])
            (sql,) = cursor.fetchone()
            cursor.execute(f'DROP INDEX "{name}"')
            cursor.execute(sql.replace(f'"{name}"', f'"{original}"', 1))
