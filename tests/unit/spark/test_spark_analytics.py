"""spark_jobs.analytics transforms on a hand-built log with every cart fate, exact rows expected."""

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.testing import assertDataFrameEqual

from spark_jobs import analytics, common
from tests.spark_session import at, catalog_frame, checked_out, events_frame

pytestmark = pytest.mark.spark

# cart-a: checked out after 4 minutes (added then removed a knife); cart-b: abandoned with items;
# cart-c: never got an item; cart-d: next day, same shopper as cart-a, checked out two hours after adding.
LOG: list[tuple[str, str, dict[str, Any], str]] = [
    ("cart-a", "CartStarted", {"owner": "anon:1"}, "2026-01-01 10:00:00"),
    ("cart-a", "ItemAdded", {"sku": "BOK-001", "quantity": 1, "unit_price": "10.00"}, "2026-01-01 10:01:00"),
    ("cart-a", "ItemAdded", {"sku": "KIT-001", "quantity": 2, "unit_price": "5.00"}, "2026-01-01 10:02:00"),
    ("cart-a", "ItemRemoved", {"sku": "KIT-001"}, "2026-01-01 10:03:00"),
    ("cart-a", "CheckedOut", checked_out([("BOK-001", 1, "10.00")], "10.00"), "2026-01-01 10:05:00"),
    ("claim-user-x", "UsernameClaimed", {"owner": "anon:9"}, "2026-01-01 10:30:00"),
    ("cart-b", "CartStarted", {"owner": "anon:2"}, "2026-01-01 11:00:00"),
    ("cart-b", "ItemAdded", {"sku": "KIT-001", "quantity": 1, "unit_price": "5.00"}, "2026-01-01 11:10:00"),
    ("cart-c", "CartStarted", {"owner": "anon:3"}, "2026-01-01 12:00:00"),
    ("cart-d", "CartStarted", {"owner": "anon:1"}, "2026-01-02 09:00:00"),
    ("cart-d", "ItemAdded", {"sku": "BOK-001", "quantity": 2, "unit_price": "10.00"}, "2026-01-02 09:00:00"),
    ("cart-d", "ItemQuantityChanged", {"sku": "BOK-001", "from_quantity": 2, "to_quantity": 3}, "2026-01-02 09:20:00"),
    ("cart-d", "CheckedOut", checked_out([("BOK-001", 3, "10.00")], "30.00"), "2026-01-02 11:00:00"),
]
CATALOG = [("BOK-001", "A book", "Books", "10.00"), ("KIT-001", "A knife", "Kitchen", "5.00")]


def local(text: str) -> datetime:
    """PySpark collects timestamps as naive datetimes in the driver's local time zone."""
    return at(text).astimezone().replace(tzinfo=None)


@pytest.fixture(scope="module")
def views(spark: SparkSession) -> dict[str, DataFrame]:
    return analytics.transform(events_frame(spark, LOG), catalog_frame(spark, CATALOG))


def test_summary_counts_the_funnel_and_revenue_over_the_whole_log(views: dict[str, DataFrame]) -> None:
    expected = Row(
        carts_started=4, carts_with_items=3, carts_checked_out=2, conversion_rate=0.5, abandonment_rate=1 / 3,
        revenue=Decimal("40.00"), average_order_value=Decimal("20.00"),
    )  # fmt: skip
    assertDataFrameEqual(views["summary"], [expected])


def test_funnel_per_day_of_cart_start_with_conversion_and_abandonment(views: dict[str, DataFrame]) -> None:
    assertDataFrameEqual(
        views["funnel_daily"],
        [
            Row(
                day=date(2026, 1, 1),
                carts_started=3,
                carts_with_items=2,
                carts_checked_out=1,
                conversion_rate=1 / 3,
                abandonment_rate=0.5,
            ),
            Row(
                day=date(2026, 1, 2),
                carts_started=1,
                carts_with_items=1,
                carts_checked_out=1,
                conversion_rate=1.0,
                abandonment_rate=0.0,
            ),
        ],
    )


def test_revenue_and_average_order_value_per_checkout_day(views: dict[str, DataFrame]) -> None:
    assertDataFrameEqual(
        views["revenue_daily"],
        [
            Row(day=date(2026, 1, 1), orders=1, revenue=Decimal("10.00"), average_order_value=Decimal("10.00")),
            Row(day=date(2026, 1, 2), orders=1, revenue=Decimal("30.00"), average_order_value=Decimal("30.00")),
        ],
    )


def test_products_by_adds_purchases_and_added_then_removed_with_catalog_names(views: dict[str, DataFrame]) -> None:
    assertDataFrameEqual(
        views["product_activity"],
        [
            Row(
                sku="BOK-001",
                name="A book",
                category="Books",
                adds=2,
                purchased_quantity=4,
                orders=2,
                added_then_removed=0,
            ),
            Row(
                sku="KIT-001",
                name="A knife",
                category="Kitchen",
                adds=2,
                purchased_quantity=0,
                orders=0,
                added_then_removed=1,
            ),
        ],
    )


def test_time_from_first_add_to_checkout_lists_every_bucket(views: dict[str, DataFrame]) -> None:
    carts = [row.carts for row in views["checkout_time"].orderBy("bucket").collect()]
    labels = [row.label for row in views["checkout_time"].orderBy("bucket").collect()]
    assert labels == [label for label, _, _ in analytics.CHECKOUT_BUCKETS]
    assert carts == [0, 1, 0, 0, 1, 0]  # 4 minutes; 2 hours


def test_hourly_tumbling_windows_count_cart_events_only(views: dict[str, DataFrame]) -> None:
    assertDataFrameEqual(
        views["hourly_activity"],
        [
            Row(window_start=local("2026-01-01 10:00:00"), events=5, carts=1, adds=2, checkouts=1),
            Row(window_start=local("2026-01-01 11:00:00"), events=2, carts=1, adds=1, checkouts=0),
            Row(window_start=local("2026-01-01 12:00:00"), events=1, carts=1, adds=0, checkouts=0),
            Row(window_start=local("2026-01-02 09:00:00"), events=3, carts=1, adds=1, checkouts=0),
            Row(window_start=local("2026-01-02 11:00:00"), events=1, carts=1, adds=0, checkouts=1),
        ],
    )


def test_sessions_split_a_shopper_at_a_pause_longer_than_the_gap(views: dict[str, DataFrame]) -> None:
    # anon:1 on day 2: 09:00-09:20, then a 100-minute pause, then the checkout alone.
    assertDataFrameEqual(
        views["sessions_daily"],
        [
            Row(
                day=date(2026, 1, 1), sessions=3, average_seconds=300.0, average_events=8 / 3, sessions_with_checkout=1
            ),
            Row(day=date(2026, 1, 2), sessions=2, average_seconds=600.0, average_events=2.0, sessions_with_checkout=1),
        ],
    )


def test_an_empty_archive_gives_zeros_not_errors(spark: SparkSession) -> None:
    empty = spark.createDataFrame([], common.EVENT_SCHEMA)
    views = analytics.transform(empty, catalog_frame(spark, CATALOG))
    row = views["summary"].first()
    assert row is not None
    assert (row.carts_started, row.carts_checked_out, row.revenue, row.conversion_rate) == (0, 0, Decimal("0.00"), 0.0)
    assert views["funnel_daily"].count() == 0
