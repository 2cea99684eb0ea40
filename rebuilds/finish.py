"""The end of a rebuild: the last events and the swap (or the comparison), in one transaction.

Writers of the live table are held off for that one transaction (see
docs/adr/0005-rebuilding-projections.md):

* `cart_view` (inline) is written by every command, in the append's own
  transaction. On PostgreSQL we take SLOW_LOCK (migration 0003) exclusively:
  it waits until every append in flight has committed, with its cart_view rows,
  and holds every new append until we commit. No append is in flight then, so
  every committed event is safe to read (`appends_paused`), and the shadow
  takes the last of them; after the rename, waiting commands write into the
  new table. On SQLite, BEGIN IMMEDIATE already holds the single write lock.
* An async projection is written only by its consumer, in its own batch
  transactions. We lock its table, take the last events gap-safe, rename, and
  move the consumer's checkpoint to the shadow's position in the same commit:
  the consumer continues exactly where the shadow stopped. A batch it fetched
  from the old checkpoint fails its compare-and-set and is fetched again.
"""

from importlib import import_module

from django.db import connection, transaction

from consumers.models import Checkpoint
from eventlog import store
from eventlog.records import RecordedEvent
from projections import registry
from projections.registry import Projection

from . import runs, shadow, verify, versions
from .models import RebuildRun

SLOW_LOCK: int = import_module("eventlog.migrations.0003_append_function").SLOW_LOCK


def is_inline(projection: Projection) -> bool:
    return projection.NAME in {p.NAME for p in registry.inline()}


def swap(run: RebuildRun, projection: Projection) -> int:
    """Take the last events into the shadow and put it live; return the position it holds."""
    with transaction.atomic():
        _hold_writers(projection, mode="ACCESS EXCLUSIVE")
        events = _read_rest(run.position, projection)
        position = _apply(projection, events, run.position, run.shadow_table)
        shadow.swap(projection.TABLE, run.shadow_table)
        if not is_inline(projection):
            Checkpoint.objects.update_or_create(name=projection.NAME, defaults={"position": position})
        versions.record(projection, run)
        runs.set_status(run, "swapped", position=position, events_done=run.events_done + len(events))
    return position


def compare(run: RebuildRun, projection: Projection) -> list[verify.RowDifference]:
    """Bring the shadow and the live view to the same position, then compare them row by row."""
    with transaction.atomic():
        _hold_writers(projection, mode="SHARE ROW EXCLUSIVE")
        live_at = None if is_inline(projection) else _checkpoint(projection.NAME)
        events = _read_rest(min(run.position, live_at if live_at is not None else run.position), projection)
        position = _apply(projection, events, run.position, run.shadow_table)
        if live_at is not None and position > live_at:
            # The consumer's own next batches, done here so both sides stand at one position.
            _apply(projection, events, live_at, projection.TABLE)
            Checkpoint.objects.update_or_create(name=projection.NAME, defaults={"position": position})
        done = run.events_done + sum(1 for event in events if event.position > run.position)
        differences = verify.compare(projection, run.shadow_table)
        status = "differs" if differences else "verified"
        runs.set_status(run, status, position=position, events_done=done, differences=len(differences))
    return differences


def _hold_writers(projection: Projection, *, mode: str) -> None:
    """Until this transaction ends, nothing else writes the live table (see the module doc)."""
    if connection.vendor != "postgresql":
        return  # BEGIN IMMEDIATE (settings) holds SQLite's one write lock already
    with connection.cursor() as cursor:
        if is_inline(projection):
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SLOW_LOCK])
        else:
            cursor.execute(f'LOCK TABLE "{projection.TABLE}" IN {mode} MODE')


def _read_rest(after: int, projection: Projection) -> list[RecordedEvent]:
    """Everything left after `after`; runs before this transaction's first write (store.read_all)."""
    events: list[RecordedEvent] = []
    paused = is_inline(projection)
    while batch := store.read_all(after, 5000, categories=projection.CATEGORIES, appends_paused=paused):
        events += batch
        after = batch[-1].position
    return events


def _apply(projection: Projection, events: list[RecordedEvent], after: int, table: str) -> int:
    fresh = [event for event in events if event.position > after]
    for start in range(0, len(fresh), 1000):
        projection.apply(fresh[start : start + 1000], table)
    return fresh[-1].position if fresh else after


def _checkpoint(name: str) -> int | None:
    """Read only: a write here would give the transaction an id before `_read_rest`.

    None when no consumer of that name has run: then nobody keeps the live view
    up to date by position (or a consumer of another name does, as the claim
    validator keeps `claims`), and --verify compares it as it stands."""
    return Checkpoint.objects.filter(name=name).values_list("position", flat=True).first()
