"""`python manage.py run_spark_jobs`: archive the log, run every Spark job, load the read tables.

Each step's line is printed once, after the seconds since the start, and while Spark works a
line every few seconds says how many Spark jobs have ended (analytics/spark_console.py); the
pipeline's log records of the same lines, and the JVM's noise, stay off the screen (`-v 2`
keeps the log records).
"""

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from analytics import spark_console
from analytics.command_errors import as_command_errors
from analytics.pipeline import run_all
from analytics.run_lock import exclusive_run

# Loggers whose INFO lines repeat what the command prints, or only say how it works inside.
ECHOES = ("analytics.pipeline", "consumers.lease")


class Command(BaseCommand):
    help = (
        "Bring the event archive up to date, run every Spark job over it (SPARK_MASTER, default local[*]) "
        "and load the analytics and recommendation views."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--progress-every", type=float, default=spark_console.TICK_SECONDS, metavar="SECONDS",
            help="while Spark works, say how many Spark jobs have ended at most this often (default 5)",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        lock, began = threading.Lock(), time.monotonic()

        def show(message: str) -> None:  # from the pipeline (main thread) and the Spark watcher
            if verbosity:
                with lock:
                    self.stdout.write(f"{time.monotonic() - began:6.1f}s  {message}")

        spark_console.quiet_jvm()
        with (
            as_command_errors(),
            _only_warnings(ECHOES, unless=verbosity >= 2),
            spark_console.jvm_stderr_filtered(),
            exclusive_run(),
            spark_console.spark_progress(show, every=options["progress_every"]),
        ):
            result = run_all(progress=show)
        if verbosity:
            timings = ", ".join(f"{step} {seconds:.1f}s" for step, seconds in result.seconds.items())
            self.stdout.write(
                self.style.SUCCESS(
                    f"views cover the log through position {result.covers_position} "
                    f"({result.events_read} events read; {sum(result.rows.values())} rows written; {timings})"
                )
            )


@contextmanager
def _only_warnings(names: tuple[str, ...], *, unless: bool) -> Iterator[None]:
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    if not unless:
        for logger in loggers:
            logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
