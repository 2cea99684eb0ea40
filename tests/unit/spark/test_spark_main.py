"""The jobs' spark-submit entry points: read an archive folder up to its checkpoint, write Parquet per view."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from spark_jobs import analytics, common, recommendations
from tests.spark_session import catalog_frame, events_frame
from tests.unit.spark.test_spark_analytics import CATALOG, LOG

pytestmark = pytest.mark.spark


@pytest.fixture
def archive(spark: SparkSession, tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    events = events_frame(spark, LOG)
    events.where("position <= 6").write.parquet(str(root / "events" / "event_date=2026-01-01"))
    events.where("position > 6").write.parquet(str(root / "events" / "event_date=2026-01-02"))
    # Position 13 (cart-d's checkout) is past the checkpoint: written, not yet acknowledged by the archiver.
    (root / "_checkpoint.json").write_text(json.dumps({"position": 12, "events": 12}))
    catalog_frame(spark, CATALOG).write.parquet(str(tmp_path / "catalog.parquet"))
    return root


def test_main_writes_every_view_from_the_archive_up_to_its_checkpoint(
    spark: SparkSession, archive: Path, tmp_path: Path
) -> None:
    arguments = ["--archive", str(archive), "--catalog", str(tmp_path / "catalog.parquet"), "--out"]
    assert analytics.main([*arguments, str(tmp_path / "out")]) == 0
    assert recommendations.main([*arguments, str(tmp_path / "out")]) == 0

    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(_views())
    summary = spark.read.parquet(str(tmp_path / "out" / "summary")).first()
    assert summary is not None
    assert (summary.carts_started, summary.carts_checked_out, str(summary.revenue)) == (4, 1, "10.00")
    assert common.covers_position(common.read_archive(spark, archive)) == 12


def test_the_documented_spark_submit_command_runs_the_job(archive: Path, tmp_path: Path) -> None:
    # docs/analytics.md: `PYTHONPATH=. spark-submit spark_jobs/analytics.py --archive ... --out ...`,
    # run from the project's root as a real spark-submit (its own JVM), not main() in this process.
    root = Path(__file__).resolve().parents[3]
    spark_submit = Path(sys.executable).parent / "spark-submit"
    command = [str(spark_submit), "spark_jobs/analytics.py", "--archive", str(archive),
               "--catalog", str(tmp_path / "catalog.parquet"), "--out", str(tmp_path / "submitted")]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": ".", "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)

    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "submitted" / "summary").is_dir() and (tmp_path / "submitted" / "sessions_daily").is_dir()


def test_an_archive_without_a_checkpoint_reads_as_empty(spark: SparkSession, tmp_path: Path) -> None:
    assert common.read_archive(spark, tmp_path / "nothing-here").count() == 0


def _views() -> list[str]:
    return ["summary", "funnel_daily", "revenue_daily", "product_activity", "checkout_time", "hourly_activity",
            "sessions_daily", "recommendations"]  # fmt: skip
