"""A real Spark standalone master and worker from pyspark's own distribution, for the tests.

SPARK_HOME is pyspark's package folder (it ships bin/spark-class and the jars).
Both daemons bind to 127.0.0.1 on free ports; the worker has 1 core, a little
memory, and its own work and scratch folders under the test's tmp dir (the
package folder may not be writable). Stopped however the test ends.
"""

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspark
import pytest

from tests.kafka_broker import free_port

SPARK_HOME = Path(pyspark.__file__).parent
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


@dataclass(frozen=True)
class Cluster:
    master_url: str
    ui_url: str

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.ui_url}/json/", timeout=5) as response:
            return dict(json.load(response))


def _daemon(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), *args], env=env, stdout=out, stderr=out)


def _wait(check: object, what: str, logs: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except OSError:
            pass
        time.sleep(0.5)
    tails = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(logs.glob("*.log")))
    raise AssertionError(f"{what} within {seconds}s\n{tails}")


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    base = tmp_path_factory.mktemp("spark-cluster")
    work, scratch = base / "work", base / "local"
    work.mkdir()
    scratch.mkdir()
    env = {
        **os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_WORKER_DIR": str(work), "SPARK_LOCAL_DIRS": str(scratch), "SPARK_LOG_DIR": str(base),
        "SPARK_NO_DAEMONIZE": "1",
    }  # fmt: skip
    port, ui = free_port(), free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui}")
    daemons = [
        _daemon([MASTER_CLASS, "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)], env,
                base / "master.log"),
    ]  # fmt: skip
    try:
        _wait(lambda: cluster.status().get("status") == "ALIVE", "the master did not start", base)
        ports = ["--port", str(free_port()), "--webui-port", str(free_port())]
        worker = [WORKER_CLASS, cluster.master_url, "--host", "127.0.0.1", *ports, "--cores", "1", "--memory", "1g"]
        worker += ["--work-dir", str(work)]
        daemons.append(_daemon(worker, env, base / "worker.log"))
        _wait(lambda: cluster.status().get("aliveworkers") == 1, "no worker registered with the master", base)
        yield cluster
    finally:
        for daemon in reversed(daemons):
            daemon.terminate()
        for daemon in daemons:
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
