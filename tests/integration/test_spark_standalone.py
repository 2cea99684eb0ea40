"""`manage.py run_spark_jobs` on a real standalone Spark cluster (master + worker), end to end.

The command runs in its own process with SPARK_MASTER=spark://..., so its driver
is a client of the cluster and every task runs in the worker's executor, which
reads the archive and the catalog export from the shared folder
(EVENT_ARCHIVE_PATH): nothing from the driver's temp dir.
"""

import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from analytics import models as read_tables
from eventlog import store
from simulator.simulate import simulate
from tests.log_helpers import wait_until_readable
from tests.processes import database_url
from tests.spark_cluster import Cluster, spark_cluster  # noqa: F401  (fixture)

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def test_run_spark_jobs_through_a_standalone_master_and_worker(
    seeded_catalog: None,
    tmp_path: Path,
    spark_cluster: Cluster,  # noqa: F811
) -> None:
    simulate(carts=30, seed=5, days=2, start=date(2026, 4, 1))
    wait_until_readable()
    head = store.head_position()
    archive = tmp_path / "shared" / "archive"
    env = {
        **os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "cartlog.settings",
        "DJANGO_SECRET_KEY": "test-only-not-secret", "SPARK_MASTER": spark_cluster.master_url,
        "SPARK_LOCAL_IP": "127.0.0.1", "EVENT_ARCHIVE_PATH": str(archive), "CARTLOG_VAR_DIR": str(tmp_path / "var"),
        "KAFKA_BOOTSTRAP_SERVERS": "",
    }  # fmt: skip

    done = subprocess.run(
        [sys.executable, "manage.py", "run_spark_jobs"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=420,
    )  # fmt: skip

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"({spark_cluster.master_url})" in done.stdout  # the session ran on the cluster, not local[*]
    assert (archive / "catalog" / "catalog.parquet").is_file()
    assert read_tables.Summary.objects.get().covers_position == head
    for model in (read_tables.FunnelDay, read_tables.RevenueDay, read_tables.ProductStats, read_tables.Recommendation):
        assert model.objects.exists(), model.__name__
    finished = [app["state"] for app in spark_cluster.status()["completedapps"]]
    assert finished == ["FINISHED"]  # the session stopped: the cluster's core is free again
    assert spark_cluster.status()["activeapps"] == []
