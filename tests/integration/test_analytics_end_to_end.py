"""Simulate -> archive -> Spark jobs -> API on PostgreSQL: the figures equal SQL over the event table,
and the planted association is the top recommendation for its product."""

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from pyspark.sql import SparkSession
from rest_framework.test import APIClient

from analytics.pipeline import run_all
from eventlog import store
from simulator.simulate import simulate
from tests.log_helpers import wait_until_readable
from tests.spark_session import spark  # noqa: F401  (the one session-scoped SparkSession)

pytestmark = [pytest.mark.postgres, pytest.mark.spark, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def staff(seeded_catalog: None, settings, tmp_path: Path) -> Iterator[APIClient]:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    client = APIClient()
    client.force_authenticate(User.objects.create_user("boss", password="x", is_staff=True))
    yield client


def sql(query: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(query)
        return list(cursor.fetchall())


def test_simulated_shopping_reaches_the_api_with_the_log_figures(staff: APIClient, spark: SparkSession) -> None:  # noqa: F811
    simulate(carts=300, seed=11, days=5, start=date(2026, 3, 2))
    wait_until_readable()  # the archive reads gap-safe: let other sessions' open transactions end
    result = run_all(spark=spark)
    assert result.covers_position == store.head_position()

    summary = staff.get("/api/analytics/summary").json()
    [(started, with_items, checked_out, revenue)] = sql(
        """
        SELECT count(*) FILTER (WHERE type = 'CartStarted'),
               count(DISTINCT stream_id) FILTER (WHERE type = 'ItemAdded'),
               count(*) FILTER (WHERE type = 'CheckedOut'),
               coalesce(sum((data->>'total')::numeric) FILTER (WHERE type = 'CheckedOut'), 0)
        FROM eventlog_event WHERE stream_id LIKE 'cart-%%'
        """
    )
    assert (summary["carts_started"], summary["carts_with_items"], summary["carts_checked_out"]) == (
        started, with_items, checked_out,
    )  # fmt: skip
    assert started == 300 and checked_out > 0
    assert Decimal(summary["revenue"]) == revenue
    assert summary["conversion_rate"] == pytest.approx(checked_out / started)
    assert Decimal(summary["average_order_value"]) == (revenue / checked_out).quantize(Decimal("0.01"))
    assert summary["covers_position"] == result.covers_position and summary["computed_at"]

    per_day = sql(
        """
        SELECT (occurred_at AT TIME ZONE 'UTC')::date, count(*), sum((data->>'total')::numeric)
        FROM eventlog_event WHERE type = 'CheckedOut' AND stream_id LIKE 'cart-%%' GROUP BY 1 ORDER BY 1
        """
    )
    revenue_rows = staff.get("/api/analytics/revenue").json()
    assert [(r["day"], r["orders"], Decimal(r["revenue"])) for r in revenue_rows] == [
        (day.isoformat(), orders, total) for day, orders, total in per_day
    ]

    funnel_by_day = sql(
        """
        WITH carts AS (
            SELECT stream_id,
                   min(occurred_at) FILTER (WHERE type = 'CartStarted') AS started_at,
                   bool_or(type = 'ItemAdded') AS with_items,
                   bool_or(type = 'CheckedOut') AS checked_out
            FROM eventlog_event WHERE stream_id LIKE 'cart-%%' GROUP BY stream_id
        )
        SELECT (started_at AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE with_items),
               count(*) FILTER (WHERE checked_out)
        FROM carts GROUP BY 1 ORDER BY 1
        """
    )
    funnel = staff.get("/api/analytics/funnel").json()
    assert [(r["day"], r["carts_started"], r["carts_with_items"], r["carts_checked_out"]) for r in funnel] == [
        (day.isoformat(), *counts) for day, *counts in funnel_by_day
    ]

    product = staff.get("/api/products/BOK-001").json()
    assert product["also_bought"][0]["sku"] == "BOK-006"  # planted: BOK-001 -> BOK-006, p = 0.7
    top = staff.get("/api/analytics/recommendations", {"sku": "KIT-001"}).json()
    assert top[0]["recommended_sku"] == "KIT-002"  # planted: KIT-001 -> KIT-002, p = 0.6
