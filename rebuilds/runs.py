"""A rebuild's run record: start one, resume one, record each batch, finish one.

A projection has at most one unfinished run; a new rebuild resumes it when it
was started by the same code (the same VERSION and source, rebuilds.fingerprint:
its shadow is then still right so far),
and abandons it otherwise. One process at a time works on a projection's
rebuild: the `rebuild:<name>` lease (consumers.lease) sees to it.
"""

import logging
import os
import socket
import time
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from consumers.lease import Lease, held_by_anyone
from consumers.models import LeaseRow
from eventlog import store
from projections.registry import Projection

from . import shadow
from .fingerprint import fingerprint
from .models import FINISHED, RebuildRun, RunStatus

log = logging.getLogger(__name__)


class RebuildBusyError(Exception):
    """Another process is rebuilding this projection right now."""

    def __init__(self, name: str) -> None:
        super().__init__(f"a rebuild of {name!r} is running in another process")


class RunMovedError(Exception):
    """The run's checkpoint moved under us: another process works on it."""


# A lease its holder has just released can still look held for a moment: on PostgreSQL the
# lock goes with the holder's session, which the server ends after `release` has returned.
# A rebuild started right after another of the same view (in one process: a --verify, then
# the swap) was refused about once in a hundred.
PATIENCE_SECONDS = 0.5


def lease_name(name: str) -> str:
    return f"rebuild:{name}"


def take_lease(name: str, patience: float = PATIENCE_SECONDS) -> Lease:
    lease = Lease(lease_name(name), waits=False)
    if connection.vendor != "postgresql":
        _clear_dead_holder(lease.name)
    deadline = time.monotonic() + patience
    while not lease.acquire():
        if time.monotonic() >= deadline:
            lease.release()  # its session of its own, opened to ask (PostgreSQL), is not left open
            raise RebuildBusyError(name)
        time.sleep(0.02)
    return lease


def _clear_dead_holder(lease_name: str) -> None:
    """A lease row left by a killed process on this machine frees at once, not after its ttl."""
    row = LeaseRow.objects.filter(name=lease_name).first()
    if row is not None and _holder_alive(row) is False:
        row.delete()


def in_progress(name: str) -> bool:
    """Whether a process is rebuilding `name` now: it holds the lease (asked without taking it).

    A run whose process was killed (SIGKILL) cannot say so and stays BUILDING; this tells it apart.
    On SQLite the lease row is not renewed during a rebuild, so a holder on this machine counts while
    its process lives, one elsewhere until the row expires."""
    if connection.vendor == "postgresql":
        return held_by_anyone(lease_name(name))
    row = LeaseRow.objects.filter(name=lease_name(name)).first()
    if row is None:
        return False
    alive = _holder_alive(row)
    return alive if alive is not None else row.expires_at > timezone.now()


def _holder_alive(row: LeaseRow) -> bool | None:
    """Whether the process holding a lease row lives, when it runs on this machine (a holder is
    `host:pid:...`, consumers/lease.py); None when it runs elsewhere (only its row's expiry tells)."""
    host, _, rest = row.holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return None
    return _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def resume_or_start(projection: Projection) -> RebuildRun:
    """The projection's unfinished run if the same code started it (its VERSION, and its source:
    rebuilds.fingerprint), else a fresh one."""
    run = RebuildRun.objects.filter(projection=projection.NAME).exclude(status__in=FINISHED).first()
    code = fingerprint()
    if run and run.projection_version == projection.VERSION and run.code == code and shadow.exists(run.shadow_table):
        return run
    with transaction.atomic():
        if run:
            run.status = RunStatus.ABANDONED
            run.finished_at = timezone.now()
            run.save(update_fields=["status", "finished_at", "updated_at"])
        table = shadow.shadow_name(projection.TABLE)
        shadow.create(projection.TABLE, table)
        return RebuildRun.objects.create(
            projection=projection.NAME,
            projection_version=projection.VERSION,
            code=code,
            shadow_table=table,
            head=store.head_position(),
        )


def record_batch(run: RebuildRun, to_position: int, events: int, rate: float) -> None:
    """Move the run's checkpoint inside the batch's transaction (compare-and-set)."""
    moved = RebuildRun.objects.filter(id=run.id, position=run.position).update(
        position=to_position,
        events_done=run.events_done + events,
        rate=rate,
        status=RunStatus.BUILDING,
        updated_at=timezone.now(),
    )
    if moved != 1:
        raise RunMovedError(f"rebuild run {run.id} is no longer at position {run.position}")
    run.position = to_position
    run.events_done += events
    run.rate = rate


def set_status(run: RebuildRun, status: str, **fields: Any) -> None:
    run.status = status
    for name, value in fields.items():
        setattr(run, name, value)
    if status in FINISHED:
        run.finished_at = timezone.now()
    RebuildRun.objects.filter(id=run.id).update(
        status=status, finished_at=run.finished_at, updated_at=timezone.now(), **fields
    )


def stopped(run: RebuildRun) -> None:
    """Record that a run was interrupted (Ctrl-C) mid-way; it stays resumable from its checkpoint.

    Best effort: the interrupt may have cut a query short, and the status is only what operators see."""
    try:
        with transaction.atomic():  # a fresh transaction, whatever the interrupted one left
            set_status(run, RunStatus.STOPPED)
    except Exception as error:
        log.warning("rebuild run %s: could not record that it stopped (%s)", run.id, type(error).__name__)


def fail(run: RebuildRun, error: BaseException) -> None:
    """Record why a run stopped; it stays resumable from its checkpoint.

    Best effort: when the error is the database going away, recording it fails too, and
    that second error must not hide the first."""
    try:
        with transaction.atomic():
            set_status(run, RunStatus.FAILED, error=f"{type(error).__name__}: {error}")
    except Exception as second:  # one line: the caller reports the first error
        log.warning("rebuild run %s: could not record why it failed (%s)", run.id, type(second).__name__)
