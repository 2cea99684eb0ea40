"""`manage.py run_spark_jobs` (SQLite or PostgreSQL): it archives the log, runs the jobs, loads the
views, and says what it read and wrote."""

from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from pyspark.sql import SparkSession

from analytics import models as read_tables
from eventlog import store
from simulator.simulate import simulate
from tests.log_helpers import wait_until_readable
from tests.spark_session import spark  # noqa: F401  (the one session-scoped SparkSession)

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]


def test_run_spark_jobs_covers_the_whole_log_and_reports_it(
    seeded_catalog: None,
    settings,
    tmp_path: Path,
    spark: SparkSession,  # noqa: F811  (started first, so the command's getOrCreate reuses it)
) -> None:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    simulate(carts=30, seed=5, days=2, start=date(2026, 4, 1))
    wait_until_readable()
    head = store.head_position()
    out = StringIO()

    call_command("run_spark_jobs", stdout=out)

    report = out.getvalue()
    summary = read_tables.Summary.objects.get()
    logged = list(store.read_all(0, head))
    started = sum(1 for event in logged if event.type == "CartStarted")
    assert summary.covers_position == head
    assert summary.carts_started == started > 0
    assert f"through position {head}" in report
    assert f"read {len(logged)} archived events" in report
    assert "rows written" in report
