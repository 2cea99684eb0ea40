"""Each async view beside a rebuild of it to the view's own position, kept up to date as the lab looks.

The lab keeps a mirror table per async view (`<table>__lab`, made like a rebuild's shadow), filled
by the projection's own `apply` from the log, with its position in a checkpoint of its own. To
compare, one snapshot reads the view's checkpoint P, brings the mirror to exactly P and compares the
two tables row by row (`rebuilds/verify.py: compare`): a view and its checkpoint commit together,
so in one snapshot a correct view equals its mirror, however far behind the head it is.

On the Kafka transport a view's position is the longest prefix of the log it has surely applied
(consumers/coverage.py); its partitions interleave, so it also holds events past that prefix
from partitions further ahead. Those are added to the mirror for the comparison only, in a
savepoint rolled back after it: the mirror itself keeps to the prefix.
"""

from django.db import connection, transaction

from consumers import coverage, heartbeat, registry
from consumers.models import Checkpoint
from eventlog import store
from eventlog.records import RecordedEvent
from projections.registry import Projection
from rebuilds import shadow
from rebuilds.verify import RowDifference, compare
from relay import kafka_transport

BATCH = 1000


def mirror_name(projection: Projection) -> str:
    return f"{projection.TABLE}__lab"


def differences(projection: Projection) -> tuple[int, list[RowDifference]]:
    """(the view's position, the rows where it differs from the log folded up to that position)."""
    # Most of the way first, a batch a transaction: a write transaction open for the whole catch-up
    # (tens of seconds for a first look at a long log) held back every gap-safe reader of the server,
    # this shop's consumers and relay among them (docs/adr/0002-gap-safe-readers.md).
    target = _view_position(projection, _transport(projection))
    while _bring_to(projection, target, batches=1):
        pass
    with transaction.atomic():
        one_snapshot()  # the view, its checkpoint and the mirror as of one instant
        transport = _transport(projection)
        position = _view_position(projection, transport)
        _bring_to(projection, position)  # what the view applied since: a batch or two
        if transport != "kafka":
            return position, compare(projection, mirror_name(projection))
        with transaction.atomic():  # a savepoint, rolled back below
            projection.apply(_applied_beyond(projection, position), mirror_name(projection))
            found = compare(projection, mirror_name(projection))
            transaction.set_rollback(True)
        return position, found


def _transport(projection: Projection) -> str:
    return heartbeat.running(projection.NAME)[1] or registry.default_transport()


def _view_position(projection: Projection, transport: str) -> int:
    return coverage.position_on(registry.find(projection.NAME), projection.NAME, transport)


def _applied_beyond(projection: Projection, position: int) -> list[RecordedEvent]:
    found: list[RecordedEvent] = []
    after = position
    while events := store.read_all(after, BATCH, categories=projection.CATEGORIES or None):
        found += kafka_transport.applied_beyond(projection.NAME, position, events)
        after = events[-1].position
    return found


def one_snapshot() -> None:
    """Make the transaction just begun read one snapshot throughout (PostgreSQL; SQLite's already does)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")


@transaction.atomic
def _bring_to(projection: Projection, position: int, batches: int | None = None) -> bool:
    """Apply the log to the mirror up to `position`, or `batches` batches of it; whether it moved and
    has more to apply. In the caller's transaction if there is one, else in one of its own."""
    table, name = mirror_name(projection), f"lab:{projection.NAME}"
    mirror = Checkpoint.objects.filter(name=name).first()
    if mirror is None or mirror.position > position or mirror.projection_version != projection.VERSION:
        shadow.create(projection.TABLE, table)  # a fresh mirror: the view went back (a rebuild) or changed shape
        mirror = Checkpoint(name=name, position=0, projection_version=projection.VERSION)
    elif not shadow.exists(table):
        shadow.create(projection.TABLE, table)
        mirror.position = 0
    moved = False
    while mirror.position < position and (batches is None or batches > 0):
        events = store.read_all(mirror.position, BATCH, categories=projection.CATEGORIES or None)
        events = [event for event in events if event.position <= position]
        if not events:
            break  # not safe to read yet: compare what is there (the next look goes on)
        projection.apply(events, table)
        mirror.position, moved = events[-1].position, True
        batches = None if batches is None else batches - 1
    mirror.save()
    return moved and mirror.position < position
