"""A scheduled analytics run on a log where nothing was appended since the last load is skipped:
Spark would compute the same rows again (about a minute of CPU per interval on an idle shop)."""

from datetime import UTC, datetime

import pytest

from analytics.pipeline import load
from analytics.tasks import run_analytics
from eventlog import store

pytestmark = pytest.mark.django_db

SUMMARY = {"carts_started": 3, "carts_with_items": 2, "carts_checked_out": 1, "conversion_rate": 1 / 3,
           "abandonment_rate": 0.5, "revenue": "12.50", "average_order_value": "12.50"}  # fmt: skip


def test_a_run_finding_the_read_tables_at_the_logs_head_is_skipped_without_starting_spark(
    seeded_catalog: None, caplog: pytest.LogCaptureFixture
) -> None:
    head = store.head_position()
    assert head > 0  # the seeded catalog's events
    load({"summary": [SUMMARY]}, covers_position=head, computed_at=datetime(2026, 11, 28, 13, 0, tzinfo=UTC))

    result = run_analytics.apply().get()

    assert result == {"skipped": f"nothing appended since the last run (position {head})"}
    assert f"run_analytics skipped: the read tables already cover the log's head (position {head})" in caplog.text
