"""`python manage.py archive_events`: bring the Parquet event archive up to date with the log."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.template.defaultfilters import pluralize
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analytics.archive import DEFAULT_BATCH_SIZE, ArchiveResult, archive, archive_position, archive_root
from analytics.command_errors import as_command_errors
from eventlog import store


class Command(BaseCommand):
    help = "Write the log's new events to the Parquet archive (EVENT_ARCHIVE_PATH); safe to re-run at any time."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help="events per read and write")

    def handle(self, *args: Any, **options: Any) -> None:
        with as_command_errors():
            self._archive(options)

    def _archive(self, options: dict[str, Any]) -> None:
        start = archive_position()
        pending = max(store.head_position() - start, 0)  # positions, an upper bound on events
        columns = (TextColumn("archive"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        # The bar only in a terminal, and gone once the archive is written (transient): the step ends on one line,
        # its result. A finished bar above it said the same count again, and a pipe or a file got that bar too.
        console = Console()
        shown = options["verbosity"] > 0 and console.is_terminal
        with Progress(*columns, console=console, disable=not shown, transient=True) as bar:
            task = bar.add_task("archive", total=pending)

            def show(result: ArchiveResult) -> None:
                bar.update(task, completed=result.position - start)

            result = archive(batch_size=options["batch_size"], progress=show)
            bar.update(task, completed=pending)
        if options["verbosity"]:
            self.stdout.write(
                f"archive {archive_root()}: read {result.read}, wrote {result.written} events in "
                f"{result.files} file{pluralize(result.files)}; position {start} -> {result.position}"
            )
