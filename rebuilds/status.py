"""What operators see of rebuilds: per projection, its versions and its latest run.

`summary()` is what GET /api/projections and the staff page /staff/rebuilds/
show; it only reads (the run records are written by the rebuild itself, batch
by batch, so a rebuild in another process or a Celery worker shows up too).
"""

from typing import Any

from eventlog import store
from projections import registry

from . import runs
from .models import ProjectionVersion, RebuildRun, RunStatus


def summary() -> dict[str, dict[str, Any]]:
    """{projection name: {code_version, live_version, outdated, rebuild: latest run or None}}."""
    head = store.head_position()
    live = dict(ProjectionVersion.objects.values_list("name", "version"))
    latest: dict[str, RebuildRun] = {}
    for run in RebuildRun.objects.order_by("id"):
        latest[run.projection] = run
    result = {}
    for projection in registry.all_projections():
        name, code = projection.NAME, int(projection.VERSION)
        last = latest.get(name)
        result[name] = {
            "code_version": code,
            "live_version": live.get(name),
            "outdated": live.get(name) is not None and code > live[name],
            "rebuild": describe(last, head, running=_running(last)) if last else None,
        }
    return result


def _running(run: RebuildRun) -> bool:
    return run.status == RunStatus.BUILDING and runs.in_progress(run.projection)


FINISHED = (RunStatus.SWAPPED, RunStatus.VERIFIED, RunStatus.DIFFERS)


def describe(run: RebuildRun, head: int, *, running: bool) -> dict[str, Any]:
    """`running`: a process holds the projection's rebuild lease. A run killed outright (SIGKILL) still
    says BUILDING; without it, its last rate and a time left were shown for ever, as if it went on."""
    building = run.status == RunStatus.BUILDING and running
    remaining = max(head - run.position, 0) if building else 0
    return {
        "id": run.id,
        "status": run.status,
        "running": building,
        "version": run.projection_version,
        "shadow_table": run.shadow_table,
        "position": run.position,
        "head": head,
        # A run that finished read up to the head, though its last event (run.position) may be far below it.
        "progress": 1.0 if run.status in FINISHED or not head else round(run.position / head, 4),
        "events_done": run.events_done,
        "events_per_second": round(run.rate, 1),
        "eta_seconds": round(remaining / run.rate, 1) if building and run.rate > 0 else None,
        "differences": run.differences,
        "error": run.error or None,
        "started_at": run.started_at,
        "updated_at": run.updated_at,
        "finished_at": run.finished_at,
    }
