"""Which code VERSION built each live projection table, and which ones are out of date.

A swap records the version it put live, in its own transaction; for an async
projection it also stores it on the consumer's checkpoint row
(`projection_checkpoint.projection_version`). A projection never rebuilt has
no record: its table was built by the code running it, so the first look
adopts the code's VERSION rather than rebuilding every view on a fresh install.
"""

from typing import Any

from consumers.models import Checkpoint
from projections import registry
from projections.registry import Projection

from .models import ProjectionVersion, RebuildRun


def stored(name: str) -> int | None:
    row = ProjectionVersion.objects.filter(name=name).first()
    return row.version if row else None


def record(projection: Projection, run: RebuildRun | None = None) -> None:
    ProjectionVersion.objects.update_or_create(
        name=projection.NAME, defaults={"version": projection.VERSION, "run": run}
    )
    Checkpoint.objects.filter(name=projection.NAME).update(projection_version=projection.VERSION)


def outdated(projection: Projection) -> bool:
    """True when the code's VERSION is newer than the one that built the live table."""
    version = stored(projection.NAME)
    if version is None:
        record(projection)
        return False
    return int(projection.VERSION) > version


def all_outdated() -> list[Any]:
    return [projection for projection in registry.all_projections() if outdated(projection)]
