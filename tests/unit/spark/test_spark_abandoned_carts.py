"""The abandoned-cart rule as a Spark job (spark_jobs/abandoned_carts.py), on the hand-written log
of tests/abandoned_log.py: the same set the live consumer finds (tests/integration/test_abandoned_carts.py)."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from carts.events import CartEvent
from eventlog import codec
from spark_jobs import abandoned_carts
from tests.abandoned_log import CARTS, LOG, minute
from tests.spark_session import events_frame

pytestmark = pytest.mark.spark
THIRTY_MINUTES, FIVE_MINUTES = 30 * 60, 5 * 60


def log_frame(spark: SparkSession, rows: list[tuple[str, CartEvent, int]] = LOG):  # type: ignore[no-untyped-def]
    return events_frame(
        spark,
        [
            (f"cart-{CARTS[name]}", type(event).TYPE, codec.encode(event)[2], minute(m).strftime("%Y-%m-%d %H:%M:%S"))
            for name, event, m in rows
        ],
    )


def naive(moment: datetime) -> datetime:
    # PySpark hands timestamps back as naive datetimes in the session's time zone (UTC).
    return moment.astimezone(UTC).replace(tzinfo=None)


def test_the_batch_job_finds_the_hand_written_abandoned_carts(spark: SparkSession) -> None:
    outputs = abandoned_carts.transform(log_frame(spark), after_seconds=THIRTY_MINUTES, lateness_seconds=FIVE_MINUTES)

    assertDataFrameEqual(
        outputs["abandoned_carts"],
        spark.createDataFrame(
            [(CARTS["A"], Decimal("30.00"), naive(minute(29)))],
            "cart_id string, value decimal(12,2), last_activity_at timestamp",
        ),
    )
    [totals] = outputs["abandonment"].collect()
    assert (totals.carts, totals.value, totals.recovered) == (1, Decimal("30.00"), 2)
    assert totals.watermark == naive(minute(65))


def test_more_lateness_moves_the_watermark_back_and_a_cart_is_not_yet_abandoned(spark: SparkSession) -> None:
    # 15 minutes of lateness: the watermark is minute 55, A's quiet period (29 + 30 = 59) has not passed.
    outputs = abandoned_carts.transform(log_frame(spark), after_seconds=THIRTY_MINUTES, lateness_seconds=15 * 60)

    assert outputs["abandoned_carts"].count() == 0
    assert outputs["abandonment"].first().recovered == 2  # type: ignore[union-attr]


def test_a_line_is_worth_the_price_of_its_latest_add(spark: SparkSession) -> None:
    from carts import events as e

    rows = [
        ("A", e.ItemAdded(sku="COF-001", quantity=2, unit_price=Decimal("10.00")), 0),
        ("A", e.ItemRemoved(sku="COF-001"), 1),
        ("A", e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("12.00")), 2),
        ("A", e.ItemQuantityChanged(sku="COF-001", from_quantity=1, to_quantity=4), 3),
        ("A", e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("15.00")), 4),
        ("B", e.CartStarted(owner="user:2"), 100),
    ]

    outputs = abandoned_carts.transform(log_frame(spark, rows), after_seconds=THIRTY_MINUTES, lateness_seconds=0)

    # 5 units at the price of the line's latest add (15.00), as the cart prices it; not 10.00 nor 12.00.
    assert [(r.cart_id, r.value) for r in outputs["abandoned_carts"].collect()] == [(CARTS["A"], Decimal("75.00"))]


def test_two_lines_alike_are_both_counted(spark: SparkSession) -> None:
    from carts import events as e

    # Two products, one unit each at the same price: worth 20.00. (The job once summed the distinct
    # (quantity, price) pairs of a cart's lines, and made these 10.00.)
    rows = [
        ("A", e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("10.00")), 0),
        ("A", e.ItemAdded(sku="TEA-001", quantity=1, unit_price=Decimal("10.00")), 1),
        ("B", e.CartStarted(owner="user:2"), 100),
    ]

    outputs = abandoned_carts.transform(log_frame(spark, rows), after_seconds=THIRTY_MINUTES, lateness_seconds=0)

    assert [(r.cart_id, r.value) for r in outputs["abandoned_carts"].collect()] == [(CARTS["A"], Decimal("20.00"))]
    assert outputs["abandonment"].first().value == Decimal("20.00")  # type: ignore[union-attr]
