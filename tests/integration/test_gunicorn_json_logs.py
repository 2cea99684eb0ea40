"""LOG_FORMAT=json under real gunicorn: every line the web tier writes is one JSON object.

The application's own records were JSON (cartlog/settings.py: LOGGING), but gunicorn's master
("Booting worker ...") and its access log kept their text format: 92 of 103 lines of a short run.
"""

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.integration.test_metrics_gunicorn import ROOT, answers
from tests.kafka_broker import free_port
from tests.processes import gunicorn_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_every_line_of_gunicorn_and_the_app_is_json_under_log_format_json(tmp_path: Path) -> None:
    env = gunicorn_env(tmp_path / "metrics", LOG_FORMAT="json")
    url = f"http://127.0.0.1:{free_port()}"
    command = ["gunicorn", "cartlog.wsgi", "--bind", url.removeprefix("http://"), "--workers", "2",
               "--access-logfile", "-"]  # fmt: skip
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        server = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
    try:
        deadline = time.monotonic() + 60
        while not answers(f"{url}/health/live"):
            assert server.poll() is None and time.monotonic() < deadline, err.read_text()
            time.sleep(0.2)
        for _ in range(3):
            urllib.request.urlopen(f"{url}/health/live", timeout=10).read()
    finally:
        server.terminate()
        server.wait(timeout=30)

    lines = [line for line in (out.read_text() + err.read_text()).splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # a text line fails here
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    loggers = {record["logger"] for record in records}
    assert {"gunicorn.error", "gunicorn.access"} <= loggers, loggers
    assert any("/health/live" in r["message"] for r in records if r["logger"] == "gunicorn.access")
