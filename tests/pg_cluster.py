"""A throwaway PostgreSQL cluster for fault tests: initdb on a free port, start, kill -9, restart.

The suite's own PostgreSQL is shared by everyone on the machine, so a test that
kills the server gets a cluster of its own: a temp data directory, a free TCP
port on 127.0.0.1, its socket in that directory, trust authentication. As root,
the server runs as the `postgres` OS user (PostgreSQL refuses to run as root).
`fsync=off` is safe for what these tests do: a killed process loses nothing the
kernel already has, and no test here crashes the kernel.

`python -m tests.pg_cluster PORT_FILE` keeps one running for a second test pass
(scripts/test.sh): a server of its own, because a gap-safe read waits for the
oldest transaction of its whole server (docs/adr/0002), and one pass's held
transactions would hold back the other's readers.
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import services
from tests.kafka_broker import free_port

OWNER = "cartlog_owner"  # runs migrations, owns the schema and the event table
RUNTIME = "cartlog_app"  # the web tier and the consumers (docs/reliability.md)


def bindir() -> Path | None:
    """Where initdb and postgres are: `pg_config --bindir`, else Debian's versioned folders."""
    candidates: list[Path] = []
    if pg_config := shutil.which("pg_config"):
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        candidates.append(Path(found.stdout.strip()))
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    return next((c for c in candidates if (c / "initdb").exists() and (c / "postgres").exists()), None)


class Cluster:
    """One PostgreSQL cluster; `stop`, `kill9` and `start` keep its port and its data."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="cartlog-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgres://{user}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        subprocess.run(args, check=True, capture_output=True, timeout=120, cwd=self.root, **self._as)

    def init(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def start(self, timeout: float = 30) -> float:
        """Start the postmaster; return the seconds until it accepts connections.

        Right after a kill -9 the old backends may still hold the shared memory for a
        moment and the new postmaster exits at once: it is started again until it stays.
        """
        began = time.monotonic()
        deadline = began + timeout
        while True:
            self.process = self._spawn()
            while self.process.poll() is None and not self.ready():
                assert time.monotonic() < deadline, f"PostgreSQL did not start; see {self.log}"
                time.sleep(0.05)
            if self.process.poll() is None:
                return time.monotonic() - began
            assert time.monotonic() < deadline, f"PostgreSQL did not start; see {self.log}"
            time.sleep(0.2)

    def _spawn(self) -> "subprocess.Popen[bytes]":
        log = open(self.log, "ab")  # noqa: SIM115 (owned by the process)
        settings = {
            "listen_addresses": "127.0.0.1", "port": str(self.port), "unix_socket_directories": str(self.root),
            "fsync": "off", "full_page_writes": "off", "max_connections": "100", "shared_buffers": "32MB",
        }  # fmt: skip
        options = [f"--{name}={value}" for name, value in settings.items()]
        return subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.data), *options],
            stdout=log, stderr=log, cwd=self.root, start_new_session=True, **self._as,
        )  # fmt: skip

    def ready(self) -> bool:
        result = subprocess.run(
            [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-t", "1"],
            capture_output=True, check=False,
        )  # fmt: skip
        return result.returncode == 0

    def kill9(self) -> None:
        """A crash: SIGKILL to the postmaster alone, as the OOM killer would send it."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        """A fast shutdown (SIGINT): sessions are ended, the data is checkpointed."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def sql(self, statement: str, database: str = "postgres", user: str = "postgres") -> str:
        result = subprocess.run(
            [str(self.bin / "psql"), "-X", "-v", "ON_ERROR_STOP=1", "-Atc", statement, self.url(database, user)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def destroy(self) -> None:
        """Stop whatever is left (the postmaster and any orphaned backend) and remove the folder."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
        _kill_leftovers(self.data)
        shutil.rmtree(self.root, ignore_errors=True)


def serve(port_file: Path) -> None:
    """Init and start a cluster with the suite's two roles, write its port to `port_file`, and
    keep it until SIGTERM or SIGINT; then stop it and remove its folder."""
    found = bindir()
    if found is None:
        sys.exit("tests.pg_cluster: PostgreSQL's server binaries (initdb, postgres) are not installed")
    cluster = Cluster(found)
    ended = False

    def end(signum: int, frame: Any) -> None:
        nonlocal ended
        ended = True

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, end)
    try:
        cluster.init()
        cluster.start()
        create_roles(cluster, "cartlog")
        port_file.write_text(f"{cluster.port}\n")
        while not ended and cluster.process is not None and cluster.process.poll() is None:
            time.sleep(0.2)
    finally:
        cluster.destroy()
        port_file.unlink(missing_ok=True)


def _kill_leftovers(data: Path) -> None:
    """Backends orphaned by a kill -9 of their postmaster exit by themselves; make sure."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            if str(data).encode() in cmdline:
                os.kill(int(proc.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue


def create_roles(cluster: Cluster, database: str) -> None:
    """The owner (creates the database, runs migrations) and the runtime role, as scripts/test.sh makes them."""
    cluster.sql(f"CREATE ROLE {OWNER} LOGIN CREATEDB")
    cluster.sql(f"CREATE ROLE {RUNTIME} LOGIN")
    cluster.sql(f"GRANT {RUNTIME} TO {OWNER}")  # the owner can alter what a rebuild made
    cluster.sql(f"CREATE DATABASE {database} OWNER {OWNER}")


def migrate(cluster: Cluster, database: str) -> None:
    """`manage.py migrate` as the owner, then `grant_runtime_role`, as compose's migrate service does."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "DATABASE_URL": cluster.url(database, OWNER)}
    for command in (["migrate", "--no-input", "-v0"], ["grant_runtime_role", RUNTIME]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=root, env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip


@pytest.fixture
def pg_cluster() -> Iterator[Cluster]:
    """A started throwaway cluster, removed afterwards whatever the test did to it."""
    found = bindir()
    services.require(found is not None, "PostgreSQL's server binaries (initdb, postgres)")
    assert found is not None
    cluster = Cluster(found)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture
def pg_cluster_database(pg_cluster: Cluster) -> str:
    """DATABASE_URL of a freshly migrated database in the throwaway cluster, as the runtime role."""
    create_roles(pg_cluster, "cartlog")
    migrate(pg_cluster, "cartlog")
    return pg_cluster.url("cartlog", RUNTIME)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.pg_cluster PORT_FILE")
    serve(Path(sys.argv[1]))
