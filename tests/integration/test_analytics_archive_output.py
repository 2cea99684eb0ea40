"""What the archive step prints: one line with its result, as `manage.py archive_events` and as the first step of
`run_spark_jobs` (analytics.pipeline.archive_step; the whole command, with Spark, in test_run_spark_jobs_output.py).

Both printed two lines for an archive of one batch: archive_events its finished progress bar and then its result,
run_spark_jobs a line for the batch ("archive: 20 events written, at position 20") and then the step's result.
"""

from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from analytics.pipeline import archive_step
from carts import services
from carts.handler import Context
from eventlog import store
from kernel.principal import Principal
from tests.log_helpers import wait_until_readable

pytestmark = pytest.mark.django_db(transaction=True)

DAY = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


@pytest.fixture
def root(settings: Any, tmp_path: Path) -> Path:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    return tmp_path / "archive"


@pytest.fixture
def twenty_events(catalog: None) -> int:
    """Ten carts started and given one item each on one day: 20 events, one day's partition. Their positions follow
    on from the last test's (sequences are not reset): the log's head, the last of the 20, is returned."""
    context = Context(actor=Principal.parse("anon:archive-output-test"))
    for n in range(10):
        at = DAY + timedelta(minutes=n)
        cart_id = services.start_cart(context, at=at).state.cart_id
        services.add_to_cart(context, cart_id, "COF-001", 1, at=at + timedelta(seconds=10))
    wait_until_readable()
    head = store.head_position()
    assert [event.position for event in store.read_all(0, 100)] == list(range(head - 19, head + 1))
    return head


def test_archive_events_prints_one_line_with_its_result(
    twenty_events: int, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = twenty_events
    out = StringIO()
    call_command("archive_events", "--batch-size", "8", stdout=out)
    # Not a terminal: no progress bar at all (in one it shows while the archive grows and is cleared at the end).
    assert capsys.readouterr().out == ""
    assert out.getvalue().splitlines() == [f"archive {root}: read 20, wrote 20 events in 3 files; position 0 -> {head}"]


def test_the_pipelines_archive_step_says_one_line_for_one_batch(twenty_events: int, root: Path) -> None:
    said: list[str] = []
    archive_step(said.append)
    assert said == [f"archive: read 20 new events from the log, 1 file; position {twenty_events}"]


def test_a_long_archive_says_how_far_it_got_after_each_batch_but_the_last(twenty_events: int, root: Path) -> None:
    """Batches of 8: after the first two a line says how far it got; the third's is the step's result line."""
    head, said = twenty_events, list[str]()
    archive_step(said.append, batch_size=8)
    assert said == [
        f"archive: 8 events written so far, at position {head - 12}",
        f"archive: 16 events written so far, at position {head - 4}",
        f"archive: read 20 new events from the log, 3 files; position {head}",
    ]
