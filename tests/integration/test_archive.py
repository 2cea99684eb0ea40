"""The archiver: whatever runs, crashes and re-runs happen, the archive is the log, each event once.

Runs on both backends (PostgreSQL through `DATABASE_URL`). The archive is read
back with pyarrow and compared with the event table itself.
"""

import dataclasses
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID, uuid4

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from analytics import archive_files as files
from analytics.archive import ArchiveMismatchError, archive, archive_batch, archive_position
from analytics.archive_consumer import ArchiveConsumer
from carts import services
from carts.handler import Context
from consumers import runner
from consumers.transports import TableTransport
from eventlog import store
from eventlog.records import NewEvent
from kernel.principal import Principal
from spark_jobs import archive_layout as layout

pytestmark = pytest.mark.django_db(transaction=True)

DAY = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


@pytest.fixture
def root(settings, tmp_path: Path) -> Path:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    return tmp_path / "archive"


def shop(carts: int, day: datetime = DAY, *, wait: bool = True) -> None:
    """`carts` carts of 3 to 4 events each, on the given day, readable when it returns (unless not `wait`)."""
    context = Context(actor=Principal.parse("anon:archive-test"))
    for n in range(carts):
        at = day + timedelta(minutes=n)
        cart_id = services.start_cart(context, at=at).state.cart_id
        services.add_to_cart(context, cart_id, "COF-001", 1 + n % 3, at=at + timedelta(seconds=10))
        services.add_to_cart(context, cart_id, "KIT-001", 1, at=at + timedelta(seconds=20))
        if n % 2:
            services.checkout(context, cart_id, at=at + timedelta(seconds=30))
    if wait:
        settle()


def settle(timeout: float = 10.0) -> None:
    """Wait until the gap-safe reader sees the log's head. On a PostgreSQL server shared with
    other work, any open transaction on it holds `read_all` back for a moment."""
    head, deadline = store.head_position(), time.monotonic() + timeout
    while head and not store.read_all(head - 1, 1) and time.monotonic() < deadline:
        time.sleep(0.02)


def logged() -> list[tuple[int, UUID]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT position, event_id FROM eventlog_event ORDER BY position")
        return [(int(p), e if isinstance(e, UUID) else UUID(e)) for p, e in cursor.fetchall()]


def archived(root: Path) -> list[tuple[int, UUID]]:
    table = read_archive(root)
    rows = zip(table.column("position").to_pylist(), table.column("event_id").to_pylist(), strict=True)
    return sorted((int(p), UUID(e)) for p, e in rows)


def read_archive(root: Path) -> pa.Table:
    return ds.dataset(root / "events", format="parquet", partitioning="hive").to_table()


def test_incremental_runs_give_exactly_the_log(catalog: None, root: Path) -> None:
    shop(3)
    first = archive(batch_size=4)
    assert first.read == first.written == len(logged())
    assert first.files >= 3  # one per batch of 4 at least
    shop(2, DAY + timedelta(days=1))
    second = archive(batch_size=4)

    assert second.written == len(logged()) - first.written
    assert archived(root) == logged()
    assert archive_position() == logged()[-1][0] == second.position
    assert layout.read_checkpoint(root).events == len(logged())


def test_a_rerun_with_nothing_new_writes_nothing(catalog: None, root: Path) -> None:
    shop(2)
    archive()
    again = archive()
    assert (again.read, again.written, again.files) == (0, 0, 0)
    assert archived(root) == logged()


def test_a_crash_between_files_and_checkpoint_is_repaired_by_the_next_run(catalog: None, root: Path) -> None:
    shop(2)
    archive()
    shop(2, DAY + timedelta(days=2))
    # The crashed run wrote its files (and a half-written temporary) but never moved the checkpoint.
    orphans = files.write_parts(root, store.read_all(archive_position(), 1000))
    half_written = orphans[0].path.with_name(f".{orphans[0].path.name}.tmp")
    half_written.write_bytes(b"PAR1 truncated")

    archive(batch_size=3)

    assert archived(root) == logged()
    assert not half_written.exists()


def test_a_redelivered_batch_changes_nothing(catalog: None, root: Path) -> None:
    shop(2)
    batch = store.read_all(0, 1000)
    archive_batch(batch)
    archive_batch(batch)
    archive_batch(batch[:3])
    assert archived(root) == logged()


def test_files_follow_the_contract_layout_and_schema(catalog: None, root: Path) -> None:
    shop(1)
    shop(1, DAY + timedelta(days=1))
    archive()

    parts = files.part_files(root)
    assert [part.event_date.isoformat() for part in parts] == ["2026-03-01", "2026-03-02"]
    for part in parts:
        assert part.path.parent.name == f"event_date={part.event_date.isoformat()}"
        assert part.path.name == f"part-{part.first_position:012d}-{part.last_position:012d}.parquet"
    table = read_archive(root)
    assert table.drop_columns(["event_date"]).schema.equals(files.SCHEMA)
    first = table.sort_by("position").slice(0, 1).to_pylist()[0]
    assert first["type"] == "CartStarted"
    assert first["data"] == '{"owner":"anon:archive-test"}'
    assert first["occurred_at"] == DAY


def test_the_archive_stops_at_the_position_it_is_asked_to(catalog: None, root: Path) -> None:
    shop(2)
    through = logged()[3][0]
    result = archive(through=through)
    assert result.position == through
    assert archived(root) == logged()[:4]


def test_the_management_command_brings_the_archive_up_to_date(catalog: None, root: Path) -> None:
    shop(2)
    call_command("archive_events", verbosity=0)
    assert archived(root) == logged()


def test_the_archiver_consumer_archives_what_run_consumers_delivers(catalog: None, root: Path, settings) -> None:
    settings.ARCHIVE_CONSUMER_MIN_EVENTS = 1
    shop(2)
    consumer = ArchiveConsumer()
    assert runner.drain(consumer, TableTransport(), limit=5) == len(logged())
    assert archived(root) == logged()


def test_the_archiver_consumer_waits_for_enough_events_before_writing_again(
    catalog: None, root: Path, settings
) -> None:
    settings.ARCHIVE_CONSUMER_MIN_EVENTS = 1_000
    shop(2)
    runner.drain(ArchiveConsumer(), TableTransport(), limit=3)
    assert archived(root) == logged()[:3]  # the first batch starts the archive; the rest is too little to write
    archive()
    assert archived(root) == logged()


def test_an_archive_written_from_another_log_is_refused(catalog: None, root: Path) -> None:
    shop(1)
    archive()
    checkpoint = layout.read_checkpoint(root)
    files.write_checkpoint(root, dataclasses.replace(checkpoint, last_event_id=str(uuid4())))
    shop(1)
    with pytest.raises(ArchiveMismatchError):
        archive()
    with pytest.raises(CommandError, match="another log"):
        call_command("archive_events", verbosity=0)


@pytest.mark.postgres
def test_an_event_that_commits_late_is_archived_not_skipped(catalog: None, root: Path) -> None:
    """A transaction takes a position, stays open while a later one commits; the archive waits for it."""
    shop(1)
    appended, release = threading.Event(), threading.Event()

    def slow_writer() -> None:
        try:
            with transaction.atomic():
                store.append("cart-late", 0, [NewEvent(type="CartStarted", data={"owner": "x"}, occurred_at=DAY)])
                appended.set()
                release.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=slow_writer)
    writer.start()
    assert appended.wait(10)
    shop(1, wait=False)  # commits positions after the open transaction's
    early = archive()
    release.set()
    writer.join(10)
    settle()
    archive()

    assert early.position < logged()[-1][0]  # it stopped before the hole instead of reading past it
    assert archived(root) == logged()
