"""The one SparkSession of a test run: small and quiet, shared by every Spark test (starting one costs seconds)."""

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from spark_jobs import common


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    # py4j logs "Closing down clientserver connection" from __del__ after pytest has closed its streams.
    logging.getLogger("py4j").setLevel(logging.WARNING)
    session = common.spark_session(
        "cartlog-tests",
        "local[2]",
        **{"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false", "spark.default.parallelism": "2"},
    )
    yield session
    session.stop()


def at(text: str) -> datetime:
    """'2026-01-01 10:00:00' as a UTC datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def events_frame(spark: SparkSession, rows: list[tuple[str, str, dict[str, Any], str]]) -> DataFrame:
    """Archive rows from (stream_id, type, data, occurred_at); positions and versions in list order."""
    versions: dict[str, int] = {}
    built = []
    for position, (stream, type_, data, occurred) in enumerate(rows, start=1):
        versions[stream] = versions.get(stream, 0) + 1
        built.append(
            (
                position,
                f"e{position}",
                stream,
                versions[stream],
                type_,
                1,
                json.dumps(data),
                "{}",
                at(occurred),
                at(occurred),
            )
        )
    return spark.createDataFrame(built, common.EVENT_SCHEMA)


def catalog_frame(spark: SparkSession, rows: list[tuple[str, str, str, str]]) -> DataFrame:
    from decimal import Decimal

    return spark.createDataFrame([(s, n, c, Decimal(p)) for s, n, c, p in rows], common.CATALOG_SCHEMA)


def checked_out(lines: list[tuple[str, int, str]], total: str) -> dict[str, Any]:
    return {
        "order_id": "o",
        "lines": [{"sku": s, "quantity": q, "unit_price": p, "line_total": p} for s, q, p in lines],
        "subtotal": total,
        "discount": "0",
        "total": total,
        "coupon": None,
    }
