"""`python manage.py run_spark_jobs`: archive the log, run every Spark job, load the read tables."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from analytics.archive import ArchiveMismatchError
from analytics.pipeline import run_all
from analytics.run_lock import PipelineBusyError, exclusive_run


class Command(BaseCommand):
    help = (
        "Bring the event archive up to date, run every Spark job over it (SPARK_MASTER, default local[*]) "
        "and load the analytics and recommendation views."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        quiet = options["verbosity"] == 0

        def show(message: str) -> None:
            if not quiet:
                self.stdout.write(message)

        try:
            with exclusive_run():
                result = run_all(progress=show)
        except (ArchiveMismatchError, PipelineBusyError) as error:
            raise CommandError(str(error)) from None
        if not quiet:
            timings = ", ".join(f"{step} {seconds:.1f}s" for step, seconds in result.seconds.items())
            self.stdout.write(
                self.style.SUCCESS(
                    f"views cover the log through position {result.covers_position} "
                    f"({result.events_read} events read; {sum(result.rows.values())} rows written; {timings})"
                )
            )
