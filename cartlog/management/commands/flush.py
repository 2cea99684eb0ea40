"""Django's flush, refused outside a test database: it would empty the event log."""

from typing import Any

from django.core.management.commands import flush

from cartlog import db_roles


class Command(flush.Command):
    help = "Empty a *test* database. Refused elsewhere: the event log is append-only."

    def handle(self, **options: Any) -> None:
        db_roles.refuse_outside_tests("flush", options["database"])
        super().handle(**options)
