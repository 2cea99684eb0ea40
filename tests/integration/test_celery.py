"""Celery: eager without a broker (the embedded default), and a real worker on Redis that
archives a PostgreSQL test database, its effect read back from the Parquet files."""

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID, uuid4

import pyarrow.dataset as ds
import pytest
from celery import Celery
from django.conf import settings as django_settings

from analytics.archive import archive_position
from analytics.tasks import archive_events, run_analytics
from cartlog.celery import app as celery_app
from carts import services
from carts.handler import Context
from eventlog import store
from kernel.principal import Principal
from tests.processes import database_url

pytestmark = pytest.mark.django_db(transaction=True)

REDIS = "redis://127.0.0.1:6379/14"  # a database of its own; the queue name is unique per run too


def shop(carts: int) -> None:
    context = Context(actor=Principal.parse("anon:celery-test"))
    at = datetime(2026, 5, 1, 12, tzinfo=UTC)
    for n in range(carts):
        cart_id = services.start_cart(context, at=at).state.cart_id
        services.add_to_cart(context, cart_id, "COF-001", 1 + n, at=at + timedelta(minutes=1))
    settle()


def settle(timeout: float = 10.0) -> None:
    """Wait until the gap-safe reader sees the log's head. On a PostgreSQL server shared with
    other work, any open transaction on it holds `read_all` back for a moment."""
    head, deadline = store.head_position(), time.monotonic() + timeout
    while head and not store.read_all(head - 1, 1) and time.monotonic() < deadline:
        time.sleep(0.02)


def archived_event_ids(root: Path) -> list[UUID]:
    table = ds.dataset(root / "events", format="parquet", partitioning="hive").to_table().sort_by("position")
    return [UUID(event_id) for event_id in table.column("event_id").to_pylist()]


def logged_event_ids() -> list[UUID]:
    return [event.event_id for batch in store.iter_all(0) for event in batch]


def test_without_a_broker_tasks_run_eagerly_in_the_caller(catalog: None, settings, tmp_path: Path) -> None:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    shop(2)
    assert celery_app.conf.task_always_eager
    assert archive_events.delay().get() == {"read": 4, "written": 4, "files": 1, "position": store.head_position()}
    assert archive_position() == store.head_position()


def test_beat_runs_the_analytics_pipeline_at_the_configured_interval() -> None:
    entry = celery_app.conf.beat_schedule["analytics pipeline"]
    assert entry["task"] == run_analytics.name == "analytics.tasks.run_analytics"
    assert entry["schedule"] == django_settings.ANALYTICS_INTERVAL_SECONDS
    # A run still queued when the next is due is dropped (test_analytics_schedule.py shows it on a worker).
    assert entry["options"]["expires"] == django_settings.ANALYTICS_INTERVAL_SECONDS


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
def test_a_worker_on_redis_archives_the_database_it_is_pointed_at(catalog: None, tmp_path: Path) -> None:
    shop(3)
    queue = f"test-archive-{uuid4().hex}"
    worker = start_worker(queue, archive=tmp_path / "archive", var=tmp_path / "var")
    try:
        # Not the current app: shared tasks elsewhere in the suite must keep the eager project app.
        client = Celery("test-client", broker=REDIS, backend=REDIS, set_as_current=False)
        summary = client.send_task("analytics.tasks.archive_events", queue=queue).get(timeout=90)
    finally:
        worker.terminate()
        output = worker.communicate(timeout=30)[0]
    assert summary["written"] == 6, output
    assert archived_event_ids(tmp_path / "archive") == logged_event_ids()


def start_worker(
    queue: str, *, archive: Path, var: Path, broker: str = REDIS, log: Path | None = None, **env: str
) -> subprocess.Popen[str]:
    """A worker (one task at a time) on `queue` of `broker`, its stdout and stderr (a JVM's too) in one pipe,
    or in the file `log`; `env` added to its environment."""
    command = [sys.executable, "-m", "celery", "-A", "cartlog", "worker", "--pool=solo", "-Q", queue,
               "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=INFO"]  # fmt: skip
    return start(command, celery_env(archive=archive, var=var, broker=broker, **env), log)


def start_beat(
    schedule: Path,
    *,
    archive: Path,
    var: Path,
    broker: str = REDIS,
    log: Path | None = None,
    quiet: bool = False,
    **env: str,
) -> subprocess.Popen[str]:
    """Celery beat on `broker` (its default queue), its schedule file at `schedule`, its output in `log`;
    `quiet`: `celery -q beat`, without its banner."""
    command = [sys.executable, "-m", "celery", "-A", "cartlog", *(["-q"] if quiet else []), "beat", "--loglevel=INFO",
               "--schedule", str(schedule)]  # fmt: skip
    return start(command, celery_env(archive=archive, var=var, broker=broker, **env), log)


def start(command: list[str], env: dict[str, str], log: Path | None) -> subprocess.Popen[str]:
    out = subprocess.PIPE if log is None else log.open("w")  # the process writes it until it ends
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)


ROOT = Path(__file__).resolve().parents[2]


def celery_env(*, archive: Path, var: Path, broker: str, **env: str) -> dict[str, str]:
    # Not the test run's own Spark log configuration (run_spark_jobs tests may set SPARK_SUBMIT_OPTS here).
    inherited = {key: value for key, value in os.environ.items() if key not in ("SPARK_CONF_DIR", "SPARK_SUBMIT_OPTS")}
    return {
        **inherited,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": broker,
        "EVENT_ARCHIVE_PATH": str(archive),
        "CARTLOG_VAR_DIR": str(var),
        **env,
    }
