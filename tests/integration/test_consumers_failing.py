"""A consumer whose batches keep failing says so, where an operator looks, and stops saying it once
one succeeds.

It keeps beating while it retries (its loop survives every error but a fatal one), so a heartbeat
alone called it running, /health/ready said `consumers: ok`, and only its log knew. Seen for real:
a second shop on another database, sharing the first one's archive folder, had its archiver refuse
every batch ("the archive ... holds up to position N of another log") behind a healthy status. This
is that case, with a real `run_consumers` and the operator's fix from the error message.
"""

import dataclasses
import shutil
from pathlib import Path
from uuid import uuid4

import pytest
from rest_framework.test import APIClient

from analytics import archive_files as files
from analytics.archive import archive
from consumers import status
from consumers.models import Heartbeat
from ops import health
from spark_jobs import archive_layout as layout
from tests.fault_helpers import start_manage, stop, wait_for

from .test_archive import archived, logged, root, shop

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

__all__ = ["root"]  # the fixture, imported for its use here


def failing() -> str:
    return Heartbeat.objects.filter(name="archiver").values_list("failing", flat=True).first() or ""


def test_an_archiver_refusing_every_batch_is_reported_failing_until_its_folder_is_fixed(
    catalog: None, root: Path, tmp_path: Path
) -> None:
    shop(1)
    archive()
    checkpoint = layout.read_checkpoint(root)
    files.write_checkpoint(root, dataclasses.replace(checkpoint, last_event_id=str(uuid4())))  # another log's
    shop(1)
    process = start_manage(
        ["run_consumers", "--only", "archiver"], tmp_path / "process.log", "failing", ARCHIVE_CONSUMER_MIN_EVENTS="1"
    )
    try:
        wait_for(lambda: failing().startswith("ArchiveMismatchError: "), what="the archiver saying it fails")
        assert "holds up to position" in failing() and "of another log" in failing()
        (row,) = [r for r in status.overview([], []) if r["name"] == "archiver"]
        assert row["running"] is True  # beating all the while
        assert row["failing"].startswith("ArchiveMismatchError: the archive in ")
        assert row["waiting"] is None  # not 'waiting for N events or <a time already past>' while it fails
        assert " (since 20" in row["failing"] and row["failing"].endswith(" UTC)")
        assert "archiver failing: ArchiveMismatchError: the archive in " in (health.consumers() or "")
        ready = APIClient().get("/health/ready").json()
        assert ready["status"] == "degraded"
        assert "archiver failing: ArchiveMismatchError" in ready["checks"]["consumers"]

        shutil.rmtree(root)  # what the error says to do: delete it (or set EVENT_ARCHIVE_PATH elsewhere)

        wait_for(lambda: failing() == "", what="the archiver saying it works again")
        (row,) = [r for r in status.overview([], []) if r["name"] == "archiver"]
        assert row["failing"] is None
        assert Heartbeat.objects.get(name="archiver").failing_since is None
        wait_for(lambda: archived(root) == logged(), what="the whole log archived anew")
        assert "archiver failing" not in (health.consumers() or "")
    finally:
        code = stop(process)
    assert code == 0
