"""Showing a rebuild's progress: log positions done of the head, events done, events/s, ETA.

The run record carries the same numbers (rebuilds.status), so a rebuild in the
background or in a Celery worker is visible without a terminal.
"""

import time
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, TaskID, TextColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress

from .models import RebuildRun


class Progress(Protocol):
    def start(self, run: RebuildRun, head: int) -> None: ...

    def update(self, run: RebuildRun, scanned: int = 0) -> None: ...

    def close(self) -> None: ...


class Silent:
    """For background rebuilds: the run record is the progress report."""

    def start(self, run: RebuildRun, head: int) -> None:
        return None

    def update(self, run: RebuildRun, scanned: int = 0) -> None:
        return None

    def close(self) -> None:
        return None


class Bar:
    """A rich progress bar on stderr: position of head, events done, events/s, time left.

    Not on a terminal (`> rebuild.log 2>&1`, a container's log) rich draws the bar only when it
    stops, so a rebuild of minutes said nothing until its end: there it prints the same numbers
    as a line every `every` seconds instead, and the last numbers once more at the end. Each is
    one line, never wrapped: rich wraps at the console's width (80 columns off a terminal), which
    split a report in two, and its bar drawn at the end was cut to that width ("2,329 events/s 0…").
    """

    def __init__(self, console: Console | None = None, every: float = 10.0) -> None:
        self.every, self.said_at = every, time.monotonic()
        console = console or Console(stderr=True)
        self.in_a_log = not console.is_terminal
        self.said, self.last = "", ""  # the last line printed, and the numbers as they stand (in a log)
        self.progress = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("position {task.completed:,.0f}/{task.total:,.0f}"),
            TextColumn("{task.fields[done]:,} events"),
            TextColumn("{task.fields[rate]:,.0f} events/s"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=self.in_a_log,  # lines instead (above)
        )
        self.task: TaskID | None = None

    def start(self, run: RebuildRun, head: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task(
            f"rebuild {run.projection}", total=max(head, 1), completed=run.position, done=run.events_done, rate=0.0
        )

    def update(self, run: RebuildRun, scanned: int = 0) -> None:
        """`scanned`: how far the log has been read, when that is past the run's last event (a
        projection of a few categories has read up to the head though its last event is far below)."""
        if self.task is not None:
            completed = max(run.position, scanned)
            total = max(completed, self.progress.tasks[0].total or 0)
            self.progress.update(self.task, completed=completed, total=total, done=run.events_done, rate=run.rate)
            if self.in_a_log:
                self.last = line(run, completed, total)
                if time.monotonic() - self.said_at >= self.every:
                    self.said_at = time.monotonic()
                    self._say(self.last)

    def close(self) -> None:
        self.progress.stop()
        if self.in_a_log and self.last != self.said:  # where it ended, unless that was the last line said
            self._say(self.last)

    def _say(self, text: str) -> None:
        self.said = text
        self.progress.console.print(text, soft_wrap=True, markup=False, highlight=False)


def line(run: RebuildRun, completed: float, total: float) -> str:
    """The bar's numbers as one line of a log."""
    left = f", about {round((total - completed) / run.rate)} s left" if run.rate > 0 and completed < total else ""
    return (
        f"rebuild {run.projection}: position {completed:,.0f}/{total:,.0f}, {run.events_done:,} events,"
        f" {run.rate:,.0f} events/s{left}"
    )
