"""A real gunicorn serving the test database, as the Dockerfile starts it, for the tests that need one."""

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.kafka_broker import free_port

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def serving(env: dict[str, str], *args: str, stdout: Path, stderr: Path | None = None) -> Iterator[str]:
    """`gunicorn cartlog.wsgi --workers 2 ARGS` on a free port (gunicorn.conf.py read as every run
    reads it), its output appended to the files given; yields its URL once /health/live answers."""
    url = f"http://127.0.0.1:{free_port()}"
    command = ["gunicorn", "cartlog.wsgi", "--bind", url.removeprefix("http://"), "--workers", "2", *args]
    with open(stdout, "ab") as out, open(stderr or stdout, "ab") as err:
        process = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, env=env, stdout=out, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while not answers(f"{url}/health/live"):
            assert process.poll() is None and time.monotonic() < deadline, (stderr or stdout).read_text()
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return bool(response.status == 200)
    except OSError:  # refused, reset or timed out while the workers boot (URLError is one)
        return False
