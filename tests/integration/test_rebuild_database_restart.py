"""`rebuild_projection cart_view` while PostgreSQL is killed (kill -9) and started again.

A throwaway cluster (tests/pg_cluster.py), never the shared server. The
rebuild ended in a 40-line traceback (`OperationalError: terminating
connection due to unexpected postmaster exit`) that did not say the run was
safe to resume. It now says so in one line; the same command resumes the run
and the view it swaps in equals the one the shop wrote.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from tests.pg_cluster import Cluster

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(autouse=True)
def one_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process and the rebuild it starts fold with the same code, whatever else changes in the checkout."""
    monkeypatch.setenv("CARTLOG_REBUILD_CODE", "this-test")


ROOT = Path(settings.BASE_DIR)
SAID = "run the same command again (once the database answers) to resume cart_view from its last batch"


def environment(url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "cartlog.settings",
        "KAFKA_BOOTSTRAP_SERVERS": "",
    }


def manage(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment(url),
        capture_output=True,
        text=True,
        timeout=300,
    )


def cart_view_rows(cluster: Cluster) -> str:
    return cluster.sql("SELECT cart_id, item_count, total, version FROM projection_cart_view ORDER BY 1", "cartlog")


def test_a_rebuild_cut_off_by_a_database_restart_says_how_to_resume_and_resumes(
    pg_cluster: Cluster, pg_cluster_database: str
) -> None:
    url = pg_cluster_database
    assert manage(url, "seed_catalog").returncode == 0
    assert manage(url, "simulate_shoppers", "--carts", "300", "--bulk", "-v0").returncode == 0
    live = cart_view_rows(pg_cluster)
    rebuild = subprocess.Popen(
        [sys.executable, "manage.py", "rebuild_projection", "cart_view", "--batch-size", "10", "--pause", "0.05"],
        cwd=ROOT, env=environment(url), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while pg_cluster.sql("SELECT COALESCE(MAX(position), 0) FROM rebuilds_run", "cartlog") == "0":
        assert time.monotonic() < deadline and rebuild.poll() is None, "the rebuild never committed a batch"
        time.sleep(0.05)

    pg_cluster.kill9()
    pg_cluster.start()
    _, stderr = rebuild.communicate(timeout=60)

    assert rebuild.returncode == 1
    assert SAID in stderr
    assert "Traceback" not in stderr
    again = manage(url, "rebuild_projection", "cart_view", "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "swapped in (run 1)" in again.stdout  # the same run, resumed
    assert cart_view_rows(pg_cluster) == live
