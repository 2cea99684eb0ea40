"""Beat's analytics runs on a worker busy with a run longer than ANALYTICS_INTERVAL_SECONDS: the runs queued
meanwhile are skipped or expire, each logged once, and never two run at once.

They waited in the queue and, once the long run ended, ran one after another (each a full Spark run), so a
worker never caught up. A real beat (interval 3 s) and a real worker (one task at a time) on Redis, the real
pipeline (Spark, some 20-40 s a run here). When beat sent each run comes from beat's own log, not from the
code under test.
"""

import itertools
import re
import time
from datetime import datetime
from pathlib import Path

import pytest
import redis
from celery import Celery
from celery.result import AsyncResult

from tests.integration.test_analytics_worker_log import orders
from tests.integration.test_celery import start_beat, start_worker

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.spark,
    pytest.mark.slow,
]

# Beat sends to the default queue, so the test has a Redis database to itself (not the other tests' 14).
BROKER = "redis://127.0.0.1:6379/11"
QUEUE = "celery"
SENT = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}).*Sending due task analytics pipeline")
# "Task analytics.tasks.run_analytics[<id>] received" (or "succeeded"), or discarded on arrival, expired.
TAKEN = re.compile(r"(?:Task |Discarding revoked task: )analytics\.tasks\.run_analytics\[([0-9a-f-]{36})\]")


def sent_times(beat_log: str) -> list[float]:
    """When beat sent each analytics run, in order (its log's local time)."""
    return [datetime.strptime(at, "%Y-%m-%d %H:%M:%S,%f").astimezone().timestamp() for at in SENT.findall(beat_log)]


def run_span(result: dict[str, object]) -> tuple[float, float]:
    """When a full run started and ended: it loads at `computed_at`, after its archive and Spark steps."""
    seconds = result["seconds"]
    assert isinstance(seconds, dict)
    loaded = datetime.fromisoformat(str(result["computed_at"])).timestamp()
    return loaded - seconds["archive"] - seconds["spark"], loaded + seconds["load"]


def test_runs_queued_while_a_run_is_in_progress_are_skipped_or_expire_not_run_afterwards(
    catalog: None, tmp_path: Path
) -> None:
    orders(3)
    redis.Redis.from_url(BROKER).delete(QUEUE)
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
    archive, var = tmp_path / "archive", tmp_path / "var"
    every_3_s = {"ANALYTICS_INTERVAL_SECONDS": "3", "SPARK_MASTER": "local[1]"}
    worker = start_worker(QUEUE, archive=archive, var=var, broker=BROKER, log=worker_log, **every_3_s)
    beat = start_beat(
        tmp_path / "beat-schedule", archive=archive, var=var, broker=BROKER, log=beat_log,
        ANALYTICS_INTERVAL_SECONDS="3", SPARK_MASTER="local[1]",
    )  # fmt: skip
    client = Celery("test-client", broker=BROKER, backend=BROKER, set_as_current=False)
    full: list[dict[str, object]] = []
    try:
        deadline = time.monotonic() + 600
        while len(full) < 2:  # a long run, the ones queued meanwhile, and the next full run after them
            assert time.monotonic() < deadline, worker_log.read_text()[-3000:]
            assert worker.poll() is None and beat.poll() is None, worker_log.read_text()[-3000:]
            time.sleep(2)
            if full:
                orders(1)  # something new for the next run: one that finds nothing appended is skipped too
            results = [AsyncResult(i, app=client) for i in dict.fromkeys(TAKEN.findall(worker_log.read_text()))]
            full = [r.result for r in results if r.successful() and "computed_at" in r.result]
    finally:
        beat.terminate()
        beat.wait(timeout=30)
        worker.terminate()
        worker.wait(timeout=60)
        redis.Redis.from_url(BROKER).delete(QUEUE)
    log = worker_log.read_text()
    taken = list(dict.fromkeys(TAKEN.findall(log)))  # the order the worker took them: the order beat sent them
    sent = sent_times(beat_log.read_text())
    assert len(taken) <= len(sent), (taken, sent)
    outcome = {}
    for task_id in taken:
        result = AsyncResult(task_id, app=client)
        outcome[task_id] = (
            "revoked"
            if result.state == "REVOKED"
            else "full"
            if "computed_at" in result.result
            else ("skipped" if "skipped" in result.result else result.state)
        )
    spans = sorted(run_span(AsyncResult(i, app=client).result) for i in taken if outcome[i] == "full")
    assert len(spans) >= 2, outcome
    assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans)), spans

    during = [i for i, at in zip(taken, sent, strict=False) if any(s + 0.5 < at < e - 0.5 for s, e in spans)]
    assert during, "beat sent nothing while a run was in progress: no case to show"
    assert {outcome[i] for i in during} <= {"revoked", "skipped"}, [(i, outcome[i]) for i in during]
    # Each skipped run said so once, with why; each expired one Celery discarded once.
    for task_id in (i for i in during if outcome[i] == "revoked"):
        assert log.count(f"Discarding revoked task: analytics.tasks.run_analytics[{task_id}]") == 1
    skipped = [
        i for i in taken if outcome[i] == "skipped" and "queued at" in AsyncResult(i, app=client).result["skipped"]
    ]
    assert log.count("run_analytics skipped: it was queued at") == len(skipped) >= 1, log[-3000:]
