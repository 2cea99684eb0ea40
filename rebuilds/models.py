"""What a rebuild has done so far (its own checkpoint), and which code built each live table.

A run's `position` is committed in the same transaction as the shadow rows it
covers, so a run killed at any point resumes from exactly what its shadow holds.
"""

from django.db import models


class RunStatus(models.TextChoices):
    """Where a rebuild run is. STOPPED: interrupted (Ctrl-C, a stop), resumable; a run killed
    outright (SIGKILL) cannot say so and stays BUILDING, resumable all the same."""

    BUILDING = "building"
    VERIFIED = "verified"  # --verify: the shadow equals the live view
    DIFFERS = "differs"  # --verify: it does not (the report lists the rows)
    SWAPPED = "swapped"  # the shadow is the live view now
    ABANDONED = "abandoned"  # a newer code version started over
    FAILED = "failed"
    STOPPED = "stopped"


# A run in one of these is over; any other run of its projection can be resumed.
FINISHED = (RunStatus.SWAPPED, RunStatus.ABANDONED)


class RebuildRun(models.Model):
    projection = models.CharField(max_length=100, db_index=True)
    projection_version = models.PositiveIntegerField()  # the code VERSION that fills the shadow
    code = models.CharField(max_length=64, blank=True, default="")  # rebuilds.fingerprint of that code
    shadow_table = models.CharField(max_length=200)
    position = models.BigIntegerField(default=0)  # the shadow holds every event up to here
    head = models.BigIntegerField(default=0)  # the log's head when last measured (progress, ETA)
    status = models.CharField(max_length=20, choices=RunStatus.choices, default=RunStatus.BUILDING)
    events_done = models.BigIntegerField(default=0)
    rate = models.FloatField(default=0.0)  # events per second of the current (or last) session
    differences = models.IntegerField(null=True)  # rows --verify found different
    error = models.TextField(blank=True, default="")
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "rebuilds_run"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"rebuild {self.id} of {self.projection} v{self.projection_version}: {self.status}"


class ProjectionVersion(models.Model):
    """The code VERSION that built a projection's live table (set by each swap)."""

    name = models.CharField(max_length=100, primary_key=True)
    version = models.PositiveIntegerField()
    run = models.ForeignKey(RebuildRun, null=True, on_delete=models.SET_NULL, related_name="+")
    recorded_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "rebuilds_projection_version"
