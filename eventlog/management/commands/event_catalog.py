"""`python manage.py event_catalog [--check]`: write (or check) docs/events.md."""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from eventlog.catalog import render


class Command(BaseCommand):
    help = "Generate docs/events.md from the registered event types."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="fail if docs/events.md is out of date")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(settings.BASE_DIR) / "docs" / "events.md"
        text = render()
        if options["check"]:
            if not path.exists() or path.read_text() != text:
                raise CommandError("docs/events.md is out of date: run `python manage.py event_catalog`")
            self.stdout.write("docs/events.md is up to date")
            return
        path.write_text(text)
        self.stdout.write(f"wrote {path}")
