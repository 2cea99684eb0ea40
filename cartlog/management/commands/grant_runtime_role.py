"""`manage.py grant_runtime_role <role>`: after every `migrate`, run as the owner (docs/reliability.md)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from cartlog import db_roles


class Command(BaseCommand):
    help = "Give the runtime database role SELECT/INSERT on the event log, DML elsewhere, its projection tables."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", help="the runtime role (the user of the web tier's DATABASE_URL)")
        parser.add_argument("--database", default="default")

    def handle(self, *args: Any, **options: Any) -> None:
        statements = db_roles.grant_runtime_role(options["role"], using=options["database"])
        self.stdout.write(f"granted {options['role']} its runtime rights ({len(statements)} statements)")
