"""Celery: start a rebuild in a worker (eagerly in the caller when no broker is set)."""

from celery import shared_task

from . import service


@shared_task(name="rebuilds.rebuild_projection")
def rebuild_projection(name: str, verify: bool = False, batch_size: int | None = None) -> dict[str, object]:
    """Rebuild (or verify) one projection; the run record shows progress meanwhile."""
    outcome = service.rebuild(name, verify=verify, batch_size=batch_size)
    return {
        "run_id": outcome.run_id,
        "status": outcome.status,
        "position": outcome.position,
        "events_done": outcome.events_done,
        "differences": len(outcome.differences),
    }
