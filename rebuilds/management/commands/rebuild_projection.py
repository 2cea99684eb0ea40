"""`python manage.py rebuild_projection <name> [--verify] [--batch-size N]`."""

import signal
import threading
from argparse import ArgumentTypeError
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import psycopg
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import InterfaceError, OperationalError

from projections import registry
from rebuilds import service
from rebuilds.progress import Bar
from rebuilds.runs import RebuildBusyError
from rebuilds.verify import report


class Command(BaseCommand):
    help = (
        "Rebuild a projection from position 0 beside the live one, then swap it in; "
        "--verify reports every row that would change instead (exit status 1 if any)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the projection: " + ", ".join(p.NAME for p in registry.all_projections()))
        parser.add_argument("--verify", action="store_true", help="compare with the live view instead of swapping")
        parser.add_argument(
            "--batch-size",
            type=_at_least(1, int),
            default=None,
            help="events per transaction (default: REBUILD_BATCH_SIZE, 20000)",
        )
        parser.add_argument(
            "--pause", type=_at_least(0, float), default=0.0, help="seconds to wait between batches (busy shop)"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            registry.get(options["name"])
        except KeyError as error:
            raise CommandError(str(error.args[0]) + spark_view_hint(options["name"])) from None
        progress = None if options["no_progress"] else Bar()
        try:
            with _sigterm_stops():
                outcome = service.rebuild(
                    options["name"],
                    verify=options["verify"],
                    batch_size=options["batch_size"],
                    progress=progress,
                    pause=options["pause"],
                )
        except RebuildBusyError as error:
            raise CommandError(str(error)) from None
        except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: what is committed stays, the same command resumes it
            how, status = (" (SIGTERM)", 143) if isinstance(stop, Terminated) else ("", 130)
            raise CommandError(
                f"stopped{how}; run the same command again to resume {options['name']} from its last batch",
                returncode=status,
            ) from None
        except OUTAGE as error:  # PostgreSQL restarted or the network went: a traceback said nothing more
            raise CommandError(
                f"the database could not go on ({_first_line(error)}); what was committed stays: run the same"
                f" command again (once the database answers) to resume {options['name']} from its last batch"
            ) from None
        if options["verify"]:
            self.stdout.write("\n".join(report(registry.get(options["name"]), outcome.differences)))
            if outcome.differences:
                raise CommandError(f"{len(outcome.differences)} row(s) differ; nothing was swapped", returncode=1)
            return
        self.stdout.write(
            f"{options['name']}: rebuilt from {outcome.events_done:,} events up to position {outcome.position:,}"
            f" and swapped in (run {outcome.run_id})"
        )


class Terminated(KeyboardInterrupt):
    """SIGTERM (`kill <pid>`, docker stop, systemd): stopped as Ctrl-C stops it (rebuilds.service records
    the run as stopped), where Python's default ended the process at once, silent, the run left "building"."""


@contextmanager
def _sigterm_stops() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set a handler
        yield
        return

    def terminated(signum: int, frame: FrameType | None) -> None:
        raise Terminated

    before = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


# The database unreachable or gone mid-way (as cartlog.outage.is_outage tells the web tier; the lease's
# own session and the reader's and writer's connections raise psycopg's errors unwrapped).
OUTAGE = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


# The read tables the Spark run fills (analytics/models.py) start so; none is a projection.
SPARK_VIEW_PREFIX = "analytics"


def spark_view_hint(name: str) -> str:
    """What to run instead when the name is one of the Spark views, which no projection rebuild touches."""
    if not name.lower().startswith(SPARK_VIEW_PREFIX):
        return ""
    return (
        f"; {name} looks like a Spark view (analytics_*): those are not projections, every "
        "`python manage.py run_spark_jobs` recomputes them all from the whole archive, so run that"
    )


def _at_least(low: float, kind: type[int] | type[float]) -> Callable[[str], Any]:
    """An argparse type: a number of `kind` no lower than `low` (a usage error, not a traceback, otherwise)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value < low:
            raise ArgumentTypeError(f"must be at least {low}, not {text}")
        return value

    return parse
