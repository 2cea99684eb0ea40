"""What a newcomer sees from `manage.py run_spark_jobs` (a real driver JVM, started by the command):
each line once, after the seconds since the start; Spark's progress while it works; no JVM noise."""

import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from eventlog import store
from simulator.simulate import simulate
from tests.log_helpers import wait_until_readable
from tests.processes import database_url

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
TIMED = re.compile(r"^ *\d+\.\d+s  (?P<message>.+)$")


def test_run_spark_jobs_prints_each_step_once_with_its_time_and_spark_progress_and_no_jvm_noise(
    seeded_catalog: None, tmp_path: Path
) -> None:
    simulate(carts=30, seed=5, days=2, start=date(2026, 4, 1))
    wait_until_readable()
    head, events = store.head_position(), len(store.read_all(0, 100_000))  # positions go on from earlier tests
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))},
        "DATABASE_URL": database_url(), "DJANGO_SECRET_KEY": "test-only-not-secret", "SPARK_MASTER": "local[2]",
        "EVENT_ARCHIVE_PATH": str(tmp_path / "archive"), "CARTLOG_VAR_DIR": str(tmp_path / "var"),
        "KAFKA_BOOTSTRAP_SERVERS": "", "LOG_LEVEL": "INFO",
    }  # fmt: skip

    done = subprocess.run(
        [sys.executable, "manage.py", "run_spark_jobs", "--progress-every", "0.5"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=420,
    )  # fmt: skip

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""  # no log4j warnings, no JVM notes, no log records repeating the lines below
    *steps, summary = done.stdout.splitlines()
    assert summary.startswith("views cover the log through position ")
    messages = [TIMED.match(line) for line in steps]
    assert all(messages), steps
    said = [m["message"] for m in messages if m]
    assert len(said) == len(set(said)), said
    for step in ("archive: read ", "spark: read ", "load: 1 rows into analytics_summary"):
        assert sum(message.startswith(step) for message in said) == 1, (step, said)
    # One batch archived: its result alone, not a line for the batch before it as well.
    archived = [message for message in said if message.startswith("archive")]
    assert len(archived) == 1, said
    assert re.fullmatch(rf"archive: read {events} new events from the log, \d+ files?; position {head}", archived[0])
    assert any(re.fullmatch(r"spark: \d+ Spark jobs done, \d+ running \(\d+ tasks done\)", m) for m in said), said
