"""LOG_FORMAT=json under real gunicorn: every line the web tier writes is one JSON object.

The application's own records were JSON (cartlog/settings.py: LOGGING), but gunicorn's master
("Booting worker ...") and its access log kept their text format: 92 of 103 lines of a short run.
"""

import json
import urllib.request
from pathlib import Path

import pytest

from tests.gunicorn_server import serving
from tests.processes import gunicorn_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_every_line_of_gunicorn_and_the_app_is_json_under_log_format_json(tmp_path: Path) -> None:
    env = gunicorn_env(tmp_path / "metrics", LOG_FORMAT="json")
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with serving(env, "--access-logfile", "-", stdout=out, stderr=err) as url:
        for _ in range(3):
            urllib.request.urlopen(f"{url}/health/live", timeout=10).read()

    lines = [line for line in (out.read_text() + err.read_text()).splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # a text line fails here
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    loggers = {record["logger"] for record in records}
    assert {"gunicorn.error", "gunicorn.access"} <= loggers, loggers
    assert any("/health/live" in r["message"] for r in records if r["logger"] == "gunicorn.access")
