"""A pipeline run in a real Celery worker: its log carries no "No Partition Defined" flood from Spark.

spark_jobs/recommendations.py counts the pairs beside their totals in one window without a partition,
on purpose (a few thousand rows in one task); Spark's WindowExec warned "No Partition Defined for Window
operation! Moving all data to a single partition..." each time it planned it, in the worker's log. The
rows are the same; only that logger is quieted, for that known case.
"""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import uuid4

import pytest
from celery import Celery

from carts import services
from carts.handler import Context
from kernel.principal import Principal
from tests.integration.test_celery import REDIS, settle, start_worker

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.spark,
    pytest.mark.slow,
]


def orders(count: int) -> None:
    """`count` checked-out carts, each with both products: pairs for the recommendations job."""
    context = Context(actor=Principal.parse("anon:worker-log-test"))
    at = datetime(2026, 5, 1, 12, tzinfo=UTC)
    for n in range(count):
        cart_id = services.start_cart(context, at=at).state.cart_id
        services.add_to_cart(context, cart_id, "COF-001", 1, at=at + timedelta(minutes=1))
        services.add_to_cart(context, cart_id, "KIT-001", 1, at=at + timedelta(minutes=2))
        services.checkout(context, cart_id, at=at + timedelta(minutes=3 + n))
    settle()


@pytest.mark.parametrize("log_format", ["plain", "json"])
def test_a_pipeline_run_in_a_worker_logs_no_window_partition_warning(
    catalog: None, tmp_path: Path, log_format: str
) -> None:
    """Under LOG_FORMAT=json every line is a JSON object too: the Spark driver's lines were log4j's pattern
    ("26/11/28 13:42:01 WARN Utils: ...") and the JVM's notes, raw on the worker's stderr."""
    orders(4)
    queue = f"test-worker-log-{uuid4().hex}"
    worker = start_worker(
        queue, archive=tmp_path / "archive", var=tmp_path / "var", SPARK_MASTER="local[1]", LOG_FORMAT=log_format
    )
    try:
        client = Celery("test-client", broker=REDIS, backend=REDIS, set_as_current=False)
        result = client.send_task("analytics.tasks.run_analytics", queue=queue).get(timeout=600)
    finally:
        worker.terminate()
        output = worker.communicate(timeout=60)[0]
    # Two SKUs always bought together have a lift of 1: no rule, but the job ran and planned its window.
    assert result["rows"]["recommendations"] == 0 and result["events_read"] == 16, output
    assert "Task analytics.tasks.run_analytics" in output  # the worker's log is this one
    assert "No Partition Defined" not in output
    if log_format == "json":
        lines = [line for line in output.splitlines() if line.strip()]  # "Warm shutdown" too (cartlog/celery.py)
        assert [line for line in lines if not line.startswith("{")] == []
        records = [json.loads(line) for line in lines]
        assert any(str(r["logger"]).startswith("spark.") for r in records), output  # the JVM said something
