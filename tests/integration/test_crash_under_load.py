"""kill -9 PostgreSQL under a load of commands (issue 11, item 8): nothing acknowledged is lost,
and the web tier and every consumer recover by themselves.

Gunicorn as the Dockerfile runs it and one `run_consumers` serve a throwaway
cluster (tests/pg_cluster.py). Client threads, each a user with a token, shop
over HTTP (StartCart, AddToCart twice, Checkout), every command with an
Idempotency-Key, and retry a 503 or a dropped connection with the same key.
Mid-load the postmaster is killed and, after a short outage, started again.
Then: the same gunicorn master and workers and the same `run_consumers` are
serving (and `consumers_healthy` passes); every acknowledged command's events
are in the log; each stream's versions are contiguous and `cart_view` equals
its fold; the async views equal a rebuild from position 0 (tests/integration/crash_checks.py).
Every loop has a deadline; every process is stopped however the test ends.
"""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.fault_helpers import report, wait_for
from tests.integration.test_outage_gunicorn import Gunicorn, gunicorn  # noqa: F401  (fixture)
from tests.pg_cluster import Cluster

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = 4
OUTAGE = 2.0  # seconds between the kill and the restart
ASYNC_VIEWS = ("product_activity", "order_history")
CONSUMERS = ("product_activity", "order_history", "claim_validator", "account_creator", "archiver")
MAKE_USERS = """
import json
from django.contrib.auth.models import User
from knox.models import AuthToken
users = [User.objects.create_user(f"crash{n}", password="x") for n in range(COUNT)]
print(json.dumps([str(AuthToken.objects.create(user=user)[1]) for user in users]))
"""


@dataclass(frozen=True)
class Ack:
    key: str
    sent: float  # monotonic time the first attempt left
    acked: float  # monotonic time the 2xx came back


class Client(threading.Thread):
    """Shops until `stop`: each command is sent until it is acknowledged, with one Idempotency-Key."""

    def __init__(self, base: str, token: str, skus: list[str], stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.base, self.token, self.skus, self.stop = base, token, skus, stop
        self.acks: list[Ack] = []
        self.unexpected: list[tuple[str, int, str]] = []
        self.retries = 0

    def send(self, path: str, body: dict[str, object] | None = None, timeout: float = 60) -> dict[str, object]:
        key, sent = str(uuid.uuid4()), time.monotonic()
        headers = {"Authorization": f"Token {self.token}", "Idempotency-Key": key, "Content-Type": "application/json"}
        while time.monotonic() - sent < timeout:
            request = urllib.request.Request(self.base + path, json.dumps(body or {}).encode(), headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=20) as response:
                    self.acks.append(Ack(key, sent, time.monotonic()))
                    return dict(json.loads(response.read()))
            except urllib.error.HTTPError as error:
                if error.code != 503:
                    self.unexpected.append((path, error.code, error.read()[:300].decode(errors="replace")))
                    raise
            except OSError:  # refused, reset or timed out: the request may or may not have run
                pass
            self.retries += 1
            time.sleep(0.1)
        raise TimeoutError(f"{path} not acknowledged in {timeout}s")

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                cart_id = self.send("/api/carts")["id"]
                for sku in self.skus:
                    self.send(f"/api/carts/{cart_id}/items", {"sku": sku, "quantity": 1})
                self.send(f"/api/carts/{cart_id}/checkout")
        except Exception as error:  # reported by the test through `unexpected`
            self.unexpected.append(("client", 0, repr(error)))


def manage(url: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "cartlog.settings"}
    env["KAFKA_BOOTSTRAP_SERVERS"] = ""  # the table transport
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def consumers(pg_cluster_database: str, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ, "DATABASE_URL": pg_cluster_database, "DJANGO_SETTINGS_MODULE": "cartlog.settings",
        "KAFKA_BOOTSTRAP_SERVERS": "", "LOG_LEVEL": "INFO", "CONSUMER_POLL_SECONDS": "0.05",
        "EVENT_ARCHIVE_PATH": str(tmp_path / "archive"), "CARTLOG_VAR_DIR": str(tmp_path / "var"),
    }  # fmt: skip
    with open(tmp_path / "consumers.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_consumers"], cwd=ROOT, env=env, stdout=log, stderr=log
        )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def workers(master: int) -> set[int]:
    found = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True, check=False)
    return {int(pid) for pid in found.stdout.split()}


def behind(cluster: Cluster, names: tuple[str, ...] = ASYNC_VIEWS) -> int:
    """Cart events not yet applied by the slowest of `names` (0 when all caught up)."""
    with psycopg.connect(cluster.url("cartlog"), connect_timeout=2) as db:
        counts = [
            db.execute(
                "SELECT count(*) FROM eventlog_event WHERE stream_id LIKE 'cart-%%' AND position > "
                "COALESCE((SELECT position FROM projection_checkpoint WHERE name = %s), 0)",
                [name],
            ).fetchone()
            for name in names
        ]
    return max(int(row[0]) for row in counts if row is not None)


def caught_up(cluster: Cluster) -> bool:
    try:
        return behind(cluster) == 0
    except psycopg.OperationalError:
        return False


def test_kill_9_postgres_under_load_loses_no_acknowledged_command_and_everything_recovers(
    pg_cluster: Cluster,
    pg_cluster_database: str,
    gunicorn: Gunicorn,  # noqa: F811  (the fixture imported above)
    consumers: subprocess.Popen[bytes],
    tmp_path: Path,
) -> None:
    made = manage(pg_cluster_database, "shell", "-c", MAKE_USERS.replace("COUNT", str(CLIENTS)))
    assert made.returncode == 0, made.stderr
    tokens = json.loads(made.stdout.strip().splitlines()[-1])
    wait_for(lambda: manage(pg_cluster_database, "consumers_healthy").returncode == 0, 60, "consumers to beat")
    master, before = gunicorn.process.pid, workers(gunicorn.process.pid)
    stop = threading.Event()
    base = f"http://127.0.0.1:{gunicorn.port}"
    clients = [Client(base, token, ["COF-001", "KIT-001"], stop) for token in tokens]
    for client in clients:
        client.start()
    try:
        wait_for(lambda: sum(len(c.acks) for c in clients) >= 40, 60, "acknowledged commands before the kill")
        pg_cluster.kill9()
        killed = time.monotonic()
        time.sleep(OUTAGE)
        restart = pg_cluster.start()
        up = time.monotonic()
        took = wait_for(lambda: any(a.sent > up for c in clients for a in c.acks), 60, "a 2xx after the restart")
        first_ok = up + took - killed
        backlog = wait_for(lambda: caught_up(pg_cluster), 120, "the async views to catch up after the restart")
        time.sleep(3)  # more load on the recovered system
    finally:
        stop.set()
        for client in clients:
            client.join(timeout=90)
    settle = wait_for(lambda: caught_up(pg_cluster), 120, "the async views to catch up after the load")
    acked = {a.key for c in clients for a in c.acks}
    assert [u for c in clients for u in c.unexpected] == []
    assert gunicorn.process.poll() is None and gunicorn.process.pid == master
    assert workers(master) == before, "gunicorn restarted a worker"
    assert consumers.poll() is None, "run_consumers exited"
    healthy = manage(pg_cluster_database, "consumers_healthy", *[a for n in CONSUMERS for a in ("--only", n)])
    assert healthy.returncode == 0, healthy.stderr

    checked = manage(pg_cluster_database, "shell", "-c", "from tests.integration.crash_checks import main; main()")
    assert checked.returncode == 0, checked.stderr
    found = json.loads(checked.stdout.strip().splitlines()[-1])
    logged = {command_id.partition("|")[2] for command_id in found["command_ids"]}
    assert sorted(acked - logged) == [], "acknowledged commands missing from the log"
    assert found["version_gaps"] == []
    assert found["cart_view_differs_from_fold"] == []
    assert found["async_view_differs_from_rebuild"] == {}, found["positions"]
    report(
        f"kill -9 of PostgreSQL under load ({CLIENTS} clients, {len(acked)} commands acknowledged, "
        f"{found['streams']} carts, {sum(c.retries for c in clients)} retries, outage {OUTAGE:.0f}s): "
        f"restart took {restart:.2f}s; first 2xx {first_ok:.2f}s after the kill ({took:.2f}s after PostgreSQL was up); "
        f"async views caught up {up + backlog - killed:.2f}s after the kill ({backlog:.2f}s after it was up); "
        f"{settle:.2f}s after the load ended"
    )
