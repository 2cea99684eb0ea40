"""Two database roles, so the app cannot destroy its own log (docs/reliability.md).

The *owner* runs migrations and owns the schema, the event table and its
append-only trigger. The *runtime* role (DATABASE_URL of the web tier, the
consumers, the relay and Celery) may only SELECT and INSERT on the event table:
not being its owner, it can neither TRUNCATE, DROP nor ALTER it (so it cannot
disable the trigger), and without UPDATE/DELETE rights the trigger is a second
wall, kept for the owner. The runtime role owns the projection tables, which are
disposable by design: a rebuild creates a shadow table and swaps it in by rename,
which only an owner may do. The owner must be a member of the runtime role, so
that its later migrations can alter those tables.
"""

import re
from typing import Any

from django.core.management.base import CommandError
from django.db import connections

LOG_TABLES = ("eventlog_event",)  # the truth: read and append, nothing else
READ_ONLY_TABLES = ("django_migrations",)  # the schema's history is the owner's to write
# Data keys are made and destroyed, never changed in place (privacy/keys.py): no UPDATE.
KEY_TABLES = ("privacy_data_key",)


def rebuildable_tables() -> set[str]:
    from projections import registry

    return {projection.TABLE for projection in registry.all_projections()}


def table_statements(role: str, table: str, rebuildable: set[str]) -> list[str]:
    if table in LOG_TABLES:
        return [f'REVOKE ALL ON "{table}" FROM {role}', f'GRANT SELECT, INSERT ON "{table}" TO {role}']
    if table in READ_ONLY_TABLES:
        return [f'REVOKE ALL ON "{table}" FROM {role}', f'GRANT SELECT ON "{table}" TO {role}']
    if table in KEY_TABLES:
        return [f'REVOKE ALL ON "{table}" FROM {role}', f'GRANT SELECT, INSERT, DELETE ON "{table}" TO {role}']
    if table in rebuildable:
        return [f'ALTER TABLE "{table}" OWNER TO {role}']
    return [f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{table}" TO {role}']


def grant_statements(role: str, tables: list[str], rebuildable: set[str]) -> list[str]:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise CommandError(f"{role!r} is not a plain role name (lower-case letters, digits, _)")
    role = f'"{role}"'
    statements = [
        f"GRANT USAGE, CREATE ON SCHEMA public TO {role}",  # CREATE: a rebuild makes its shadow table
        # Tables and sequences later migrations create: plain DML, until this command runs again.
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {role}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {role}",
    ]
    for table in tables:
        statements += table_statements(role, table, rebuildable)
    statements.append(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    return statements


def grant_runtime_role(role: str, *, using: str = "default") -> list[str]:
    """Give `role` exactly the runtime's rights on every table of the schema; run as the owner."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        raise CommandError("database roles exist on PostgreSQL only; SQLite has nothing to grant")
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        tables = [name for (name,) in cursor.fetchall()]
        statements = grant_statements(role, tables, rebuildable_tables())
        for statement in statements:
            cursor.execute(statement)
    return statements


def is_test_database(settings_dict: dict[str, Any]) -> bool:
    """True only for the database the test runner created (settings name each one apart)."""
    return bool(settings_dict["NAME"]) and settings_dict["NAME"] == settings_dict.get("TEST", {}).get("NAME")


def refuse_outside_tests(command: str, using: str) -> None:
    if not is_test_database(connections[using].settings_dict):
        raise CommandError(
            f"{command} refused: it would empty eventlog_event, the append-only log every view is folded"
            " from. Only a test database may be emptied (see docs/reliability.md)."
        )
