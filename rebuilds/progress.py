"""Showing a rebuild's progress: log positions done of the head, events done, events/s, ETA.

The run record carries the same numbers (rebuilds.status), so a rebuild in the
background or in a Celery worker is visible without a terminal.
"""

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
    """A rich progress bar on stderr: position of head, events done, events/s, time left."""

    def __init__(self, console: Console | None = None) -> None:
        self.progress = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("position {task.completed:,.0f}/{task.total:,.0f}"),
            TextColumn("{task.fields[done]:,} events"),
            TextColumn("{task.fields[rate]:,.0f} events/s"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
            transient=False,
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

    def close(self) -> None:
        self.progress.stop()
