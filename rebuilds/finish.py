"""The end of a rebuild: the last events and the swap (or the comparison), in one transaction.

Writers of the live table are held off for that one transaction (see
docs/adr/0005-rebuilding-projections.md):

* `cart_view` (inline) is written by every command, in the append's own
  statement. We lock its table, then hold appends (`store.hold_appends`): that
  waits until every append in flight has committed, with its cart_view rows, and
  holds every new append until we commit. The table comes first because that is
  the order a command's statement takes them in (`registry.written_in_the_append`);
  the other inline views are written after their append, so for them the hold
  comes first and the rename locks the table. No append is in flight then, so every committed event
  is safe to read, and the shadow takes the last of them; after the rename,
  waiting commands write into the new table.
* An async projection is written only by its consumer, in its own batch
  transactions. We lock its table, take the last events gap-safe, rename, and
  record the shadow's position as the consumer's in the same commit, on either
  transport (rebuilds.live_position): the consumer continues exactly where the
  shadow stopped. A batch it fetched before fails its compare-and-set (the
  checkpoint, or on Kafka a partition's progress) and is fetched again.
* A consumer's own state (`claims`, the claim validator's) is written by that
  consumer alone, like an async view, but the swap leaves its position alone
  (rebuilds.live_position: record_everything_up_to): the consumer folds on from
  where it stands (each fold changes nothing twice) and still decides the
  requests after it.

`--verify` brings the live side to the shadow's position inside a savepoint
(the events its consumer has not applied yet), compares, and rolls that back:
the live table and its consumer's records stay as the consumer left them.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction

from eventlog import store
from eventlog.records import RecordedEvent
from eventlog.stores import LogReader, for_connection
from projections import registry
from projections.registry import Projection

from . import code_versions, live_position, runs, shadow, verify
from .models import RebuildRun, RunStatus


def is_inline(projection: Projection) -> bool:
    return projection.NAME in {p.NAME for p in registry.inline()}


def swap(run: RebuildRun, projection: Projection) -> int:
    """Take the last events into the shadow and put it live; return the position it holds."""
    with transaction.atomic(), _holding_writers(projection, mode="ACCESS EXCLUSIVE") as log:
        events = _read_rest(log, run.position, projection)
        position = _apply(projection, events, run.position, run.shadow_table)
        shadow.swap(projection.TABLE, run.shadow_table)
        store.announce(projection.CATEGORIES)  # read caches of this view (kernel/fresh_cache.py) drop it at commit
        if not is_inline(projection):
            live_position.record_everything_up_to(projection, position)
        code_versions.record(projection, run)
        runs.set_status(run, RunStatus.SWAPPED, position=position, events_done=run.events_done + len(events))
    return position


def compare(run: RebuildRun, projection: Projection) -> tuple[list[verify.RowDifference], int]:
    """Bring the shadow and (in a savepoint, undone) the live view to one position, and compare them
    row by row; return the differences (no events yet: `verify.explain`) and that position."""
    with transaction.atomic(), _holding_writers(projection, mode="SHARE ROW EXCLUSIVE") as log:
        live = None if is_inline(projection) else live_position.read(projection)
        behind = live.lowest() if live is not None else None
        events = _read_rest(log, run.position if behind is None else min(run.position, behind), projection)
        position = _apply(projection, events, run.position, run.shadow_table)
        done = run.events_done + sum(1 for event in events if event.position > run.position)
        undo = transaction.savepoint()
        if live is not None:
            # The consumer's own next batches, so both sides stand at one position; rolled back below.
            lacking = live.lacks([event for event in events if event.position <= position])
            _apply(projection, lacking, 0, projection.TABLE)
        differences = verify.compare(projection, run.shadow_table)
        transaction.savepoint_rollback(undo)
        status = RunStatus.DIFFERS if differences else RunStatus.VERIFIED
        runs.set_status(run, status, position=position, events_done=done, differences=len(differences))
    return differences, position


@contextmanager
def _holding_writers(projection: Projection, *, mode: str) -> Iterator[LogReader]:
    """Until this transaction ends, nothing else writes the live table (see the module doc);
    yields the reader to take the last events with."""
    if is_inline(projection):
        if registry.written_in_the_append(projection):
            # A command's one write statement locks this table when it starts and only then waits
            # for held appends: take the table first, in the same order, or each waits for the other.
            _lock(projection.TABLE, mode)
        with store.hold_appends() as every_committed:
            yield every_committed
        return
    _lock(projection.TABLE, mode)
    yield for_connection()


def _lock(table: str, mode: str) -> None:
    if connection.vendor == "postgresql":  # BEGIN IMMEDIATE (settings) holds SQLite's one write lock already
        with connection.cursor() as cursor:
            cursor.execute(f'LOCK TABLE "{table}" IN {mode} MODE')


def _read_rest(log: LogReader, after: int, projection: Projection) -> list[RecordedEvent]:
    """Everything left after `after`; runs before this transaction's first write (read_all)."""
    events: list[RecordedEvent] = []
    while batch := log.read_all(after, 5000, categories=projection.CATEGORIES):
        events += batch
        after = batch[-1].position
    return events


def _apply(projection: Projection, events: list[RecordedEvent], after: int, table: str) -> int:
    fresh = [event for event in events if event.position > after]
    for start in range(0, len(fresh), 1000):
        projection.apply(fresh[start : start + 1000], table)
    return fresh[-1].position if fresh else after
