"""LOG_FORMAT=json for the long-running commands: every line `run_relay` and `run_consumers` write is JSON.

Both printed a text banner first ("run_relay: eventlog -> ... (Ctrl-C stops)", "run_consumers: ...
on the table transport (Ctrl-C stops ...)") with `self.stdout.write`, past the logging: the one line
of the process a log shipper could not parse. gunicorn's are covered by test_gunicorn_json_logs.py.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from consumers.models import Heartbeat
from tests.kafka_broker import Broker
from tests.processes import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def lines_of(command: list[str], env: dict[str, str], tmp_path: Path, *, until_heartbeat: str) -> list[str]:
    """Every stdout and stderr line of `manage.py <command>` from its start to a SIGTERM once it beat."""
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "manage.py", *command], cwd=Path(settings.BASE_DIR),
            env={**os.environ, "DATABASE_URL": database_url(), "LOG_FORMAT": "json", **env},
            stdout=stdout, stderr=stderr,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not Heartbeat.objects.filter(name=until_heartbeat).exists():
                assert time.monotonic() < deadline, f"{until_heartbeat} never beat: {err.read_text()[-2000:]}"
                assert process.poll() is None, f"{command[0]} exited: {err.read_text()[-2000:]}"
                time.sleep(0.1)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
    return [line for line in (out.read_text() + err.read_text()).splitlines() if line.strip()]


def assert_all_json(lines: list[str]) -> list[dict[str, object]]:
    assert lines, "the process wrote nothing"
    not_json = []
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            not_json.append(line)
    assert not_json == []
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    return records


@pytest.mark.kafka
@pytest.mark.postgres
def test_every_line_of_run_relay_is_json(kafka: Broker, tmp_path: Path) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX}
    records = assert_all_json(lines_of(["run_relay"], env, tmp_path, until_heartbeat="relay"))
    # What the banner said is still there, once, as a record: where the relay sends the log.
    started = [r for r in records if str(r["message"]).startswith("relay started")]
    assert [r["message"] for r in started] == [f"relay started: eventlog_event -> {kafka.bootstrap}"]


def test_every_line_of_run_consumers_is_json(catalog: None, tmp_path: Path) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": "", "CONSUMER_POLL_SECONDS": "0.05"}
    records = assert_all_json(lines_of(["run_consumers"], env, tmp_path, until_heartbeat="order_history"))
    assert any("order_history" in str(r["message"]) for r in records)
