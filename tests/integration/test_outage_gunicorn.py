"""The web tier across a PostgreSQL crash, for real: gunicorn as the Dockerfile runs it, kill -9.

Gunicorn serves a throwaway cluster (tests/pg_cluster.py) as the runtime role.
Its access log names the worker (pid) of every request, so the test can see
that each worker answered 503 while the database was down and that the first
request each one served after the restart succeeded, with pooled connections
the restart had made stale. Every wait is bounded.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kafka_broker import free_port
from tests.pg_cluster import Cluster

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("/api/products", "/")  # an API view and a shop page, both reading the database
WAVE = 12  # concurrent requests: as many as the 3 workers x 4 threads of the Dockerfile


@dataclass(frozen=True)
class Answer:
    path: str
    status: int
    content_type: str
    retry_after: str | None
    body: bytes


def dockerfile_command() -> list[str]:
    """The CMD of the Dockerfile, as JSON (its continuation lines joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    (line,) = [line for line in text.splitlines() if line.startswith("CMD ")]
    return list(json.loads(line.removeprefix("CMD ")))


@dataclass
class Gunicorn:
    port: int
    access_log: Path
    process: subprocess.Popen[bytes]

    def get(self, path: str, marker: str, headers: dict[str, str] | None = None) -> Answer:
        url = f"http://127.0.0.1:{self.port}{path}{'&' if '?' in path else '?'}m={marker}"
        request = urllib.request.Request(url, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return Answer(path, response.status, response.headers.get_content_type(),
                              response.headers.get("Retry-After"), response.read())  # fmt: skip
        except urllib.error.HTTPError as error:
            return Answer(path, error.code, error.headers.get_content_type(),
                          error.headers.get("Retry-After"), error.read())  # fmt: skip

    def wave(self, marker: str, paths: tuple[str, ...] = PAGES, count: int = WAVE) -> list[Answer]:
        with ThreadPoolExecutor(count) as pool:
            futures = [pool.submit(self.get, paths[i % len(paths)], f"{marker}-{i}") for i in range(count)]
            return [future.result() for future in futures]

    def workers_by_marker(self, prefix: str) -> dict[int, list[int]]:
        """{worker pid: statuses of its requests whose marker starts with `prefix`, in order served}."""
        served: dict[int, list[int]] = {}
        for line in self.access_log.read_text().splitlines():
            pid, status, query = line.split(" ", 2)
            if re.search(rf"[?&]m={prefix}\d+-", query):
                served.setdefault(int(pid.strip("<>")), []).append(int(status))  # gunicorn writes <pid>
        return served

    def until_every_worker_served(self, prefix: str, workers: int, timeout: float = 60) -> dict[int, list[int]]:
        deadline = time.monotonic() + timeout
        for wave in range(1000):
            self.wave(f"{prefix}{wave}")
            time.sleep(0.2)  # the access log is written after the response
            served = self.workers_by_marker(prefix)
            if len(served) >= workers:
                return served
            assert time.monotonic() < deadline, f"only workers {sorted(served)} served {prefix}"
        raise AssertionError("unreachable")


@pytest.fixture
def gunicorn(pg_cluster_database: str, tmp_path: Path) -> Iterator[Gunicorn]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "KAFKA_", "CELERY_"))},
        "DATABASE_URL": pg_cluster_database, "DJANGO_SECRET_KEY": "test-only", "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "CARTLOG_VAR_DIR": str(tmp_path / "var"), "LOG_LEVEL": "WARNING",
    }  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "seed_catalog"], cwd=ROOT, env=env, check=True, capture_output=True)
    for sku in ("COF-001", "KIT-001"):  # what the load below buys, far beyond the demo's 50 units
        stocked = [sys.executable, "manage.py", "receive_stock", sku, "1000000"]
        subprocess.run(stocked, cwd=ROOT, env=env, check=True, capture_output=True)
    port = free_port()
    command = dockerfile_command()
    assert command[:2] == ["gunicorn", "cartlog.wsgi"]
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    access_log = tmp_path / "access.log"
    command[command.index("--access-logfile") + 1] = str(access_log)
    command += ["--access-logformat", "%(p)s %(s)s %(U)s?%(q)s"]  # %(p)s is the worker's pid
    with open(tmp_path / "gunicorn.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", *command], cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True
        )
    server = Gunicorn(port, access_log, process)
    try:
        deadline = time.monotonic() + 60
        while not serving(server):
            assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.2)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serving(server: Gunicorn) -> bool:
    """Whether gunicorn answers yet. Its master opens the access log before it listens: on a slow
    machine a request right after the file appeared was refused (ConnectionRefusedError, one CI run)."""
    if not server.access_log.exists():
        return False
    try:
        return server.get("/api/products", "ready").status == 200
    except urllib.error.URLError as error:
        if isinstance(error.reason, ConnectionRefusedError):
            return False
        raise


def workers_of(command: list[str]) -> int:
    return int(command[command.index("--workers") + 1])


def assert_unavailable(answers: list[Answer]) -> None:
    for answer in answers:
        assert answer.status == 503, (answer.path, answer.status, answer.body[:300])
        assert answer.retry_after is not None and int(answer.retry_after) > 0
        if answer.path.startswith("/api/"):
            assert answer.content_type == "application/problem+json"
            assert json.loads(answer.body)["status"] == 503
        else:
            assert answer.content_type == "text/html"
            assert b"Back in a moment" in answer.body


def test_every_worker_answers_503_while_postgres_is_down_and_succeeds_first_time_after(
    pg_cluster: Cluster,
    gunicorn: Gunicorn,
) -> None:
    workers = workers_of(dockerfile_command())
    gunicorn.until_every_worker_served("warm", workers)  # every worker holds pooled connections now

    # 1. A crash and a restart nobody noticed: every pooled connection is stale.
    pg_cluster.kill9()
    restarted = pg_cluster.start()
    began = time.monotonic()
    served = gunicorn.until_every_worker_served("stale", workers)
    assert all(statuses == [200] * len(statuses) for statuses in served.values()), served
    first_ok = time.monotonic() - began

    # 2. A crash that requests run into: 503 problem+json / a 503 page, with Retry-After, from every worker.
    pg_cluster.kill9()
    killed = time.monotonic()
    outage = gunicorn.wave("down0")
    assert_unavailable(outage)
    assert_unavailable([gunicorn.get("/api/carts", "token", {"Authorization": "Token 0123456789abcdef"})])
    assert time.monotonic() - killed < 10  # refused at once, not after a hang
    # Out of a load balancer's rotation: readiness is the database's (ops/health.py: SERVES).
    ready = gunicorn.get("/health/ready", "ready-down")
    assert (ready.status, json.loads(ready.body)["status"]) == (503, "unavailable")
    assert json.loads(ready.body)["checks"]["log"] == "database unavailable"  # not a 500 of its own query
    served = gunicorn.until_every_worker_served("down", workers)
    assert all(set(statuses) == {503} for statuses in served.values()), served

    # 3. Back: the first request each worker serves succeeds, and so does every one after it.
    restarted_again = pg_cluster.start()
    began = time.monotonic()
    served = gunicorn.until_every_worker_served("back", workers)
    assert all(statuses == [200] * len(statuses) for statuses in served.values()), served
    ready = gunicorn.get("/health/ready", "ready-back")
    assert ready.status == 200
    assert json.loads(ready.body)["checks"]["log"] == "ok"  # the check's own query recovered with the worker
    print(
        f"\nrecovery: postgres restart {restarted:.2f}s / {restarted_again:.2f}s;"
        f" every worker answered 200 within {first_ok:.2f}s / {time.monotonic() - began:.2f}s of it being up"
    )
