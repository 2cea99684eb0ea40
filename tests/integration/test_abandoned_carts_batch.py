"""Live and batch agree: the abandoned_carts consumer and the Spark job, over the same log."""

from decimal import Decimal
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from analytics import models as read_tables
from analytics.pipeline import run_all
from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.transports import TableTransport
from projections import abandoned_carts
from tests.abandoned_log import CARTS, minute
from tests.integration.test_abandoned_carts import append_log
from tests.log_helpers import wait_until_readable
from tests.spark_session import spark  # noqa: F401  (the one session-scoped SparkSession)

pytestmark = [pytest.mark.postgres, pytest.mark.spark, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_spark_job_finds_the_same_abandoned_carts_as_the_live_consumer(
    settings,
    tmp_path: Path,
    spark: SparkSession,  # noqa: F811
) -> None:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    settings.ABANDONED_CART_AFTER_SECONDS = 30 * 60
    settings.ABANDONED_CART_LATENESS_SECONDS = 5 * 60
    append_log()
    wait_until_readable()

    runner.drain(ProjectionConsumer(abandoned_carts), TableTransport())
    run_all(spark=spark)

    live = abandoned_carts.abandoned_now()
    batch = list(read_tables.AbandonedCartBatch.objects.values_list("cart_id", "value", "last_activity_at"))
    [totals] = read_tables.Abandonment.objects.all()
    expected = [(CARTS["A"], Decimal("30.00"), minute(29))]  # written by hand in tests/abandoned_log.py
    assert [(c["cart_id"], c["value"], c["last_activity_at"]) for c in live["carts"]] == expected
    assert batch == expected
    assert (totals.carts, totals.value, totals.recovered) == (1, Decimal("30.00"), live["recovered"])
    assert totals.watermark == live["watermark"] == minute(65)
