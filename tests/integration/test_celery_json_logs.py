"""LOG_FORMAT=json for a Celery worker and beat: their lines are JSON objects in the project's format.

They logged in Celery's own format (`[2026-11-28 13:41:29,273: INFO/MainProcess] ...`) after a text
banner of some 30 lines, and the worker's "running as root" warning was raw text: under LOG_FORMAT=json
a log shipper could parse none of it. Now both log through Django's LOGGING (cartlog/celery.py); beat
runs as docs/deployment.md says for JSON, `celery -q beat`.
"""

import json
import time
from pathlib import Path
from uuid import uuid4

import pytest
import redis
from celery import Celery

from tests.integration.test_celery import REDIS, start_beat, start_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

BEAT_BROKER = "redis://127.0.0.1:6379/11"  # beat sends to the default queue: a database of its own


def records(path: Path) -> list[dict[str, object]]:
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    not_json = [line for line in lines if not line.startswith("{")]
    assert not_json == [], path.read_text()[-3000:]
    parsed = [json.loads(line) for line in lines]
    assert all({"time", "level", "logger", "message"} <= set(record) for record in parsed)
    return parsed


def test_a_worker_and_beat_under_log_format_json_write_json_lines(catalog: None, tmp_path: Path) -> None:
    queue = f"test-json-{uuid4().hex}"
    archive, var = tmp_path / "archive", tmp_path / "var"
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
    worker = start_worker(queue, archive=archive, var=var, log=worker_log, LOG_FORMAT="json")
    beat = start_beat(
        tmp_path / "schedule", archive=archive, var=var, broker=BEAT_BROKER, log=beat_log, quiet=True,
        LOG_FORMAT="json", ANALYTICS_INTERVAL_SECONDS="1",
    )  # fmt: skip
    try:
        client = Celery("test-client", broker=REDIS, backend=REDIS, set_as_current=False)
        summary = client.send_task("analytics.tasks.archive_events", queue=queue).get(timeout=90)
        # Stopped while still setting up its scheduler (importing the result backend), beat's exit handler
        # fails with a traceback of its own: wait until it has sent a task (every second here), which it
        # does only once its scheduler is set up.
        deadline = time.monotonic() + 60
        while "Sending due task" not in beat_log.read_text() and time.monotonic() < deadline and beat.poll() is None:
            time.sleep(0.2)
    finally:
        beat.terminate()
        beat.wait(timeout=30)
        worker.terminate()
        worker.wait(timeout=30)
        redis.Redis.from_url(BEAT_BROKER).delete("celery")
    assert summary["position"] >= 0

    # Celery's SIGTERM handler printed `worker: Warm shutdown (MainProcess)` as text past any logging: now a record.
    worker_records = records(worker_log)
    messages = [str(r["message"]) for r in worker_records]
    assert any(m.endswith(" ready.") for m in messages), messages
    assert "worker: Warm shutdown (SIGTERM)" in messages, messages
    assert any("analytics.tasks.archive_events" in m and "succeeded" in m for m in messages), messages
    assert {str(r["logger"]) for r in records(beat_log)} >= {"celery.beat"}
