"""Django's sqlflush, refused outside a test database: its output, piped to dbshell, empties the log."""

from typing import Any

from django.core.management.commands import sqlflush

from cartlog import db_roles


class Command(sqlflush.Command):
    help = "The SQL that would empty a *test* database. Refused elsewhere: the event log is append-only."

    def handle(self, **options: Any) -> str:
        db_roles.refuse_outside_tests("sqlflush", options["database"])
        return str(super().handle(**options))
