"""Faults for the reliability tests: outages, terminated connections, processes that log what they commit.

The processes under test run with LOG_LEVEL=DEBUG, so each batch they commit
leaves a line naming its positions (consumers/runner.py, relay/relay.py): from
the logs of every process a test proves that no batch was committed twice or
by two holders of one lease.
"""

import itertools
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import psycopg
from django.conf import settings
from django.db import connection

from tests.processes import database_url

APP = "cartlog-fault"  # application_name of the processes under test (their leases: "cartlog-lease ...")


def start_manage(args: list[str], log_file: Path, tag: str, **env: str) -> subprocess.Popen[bytes]:
    """`manage.py ARGS` against the test database, logging (DEBUG) to `log_file`."""
    full_env = {
        **os.environ,
        "DATABASE_URL": f"{database_url()}?application_name={APP}-{tag}",
        "KAFKA_BOOTSTRAP_SERVERS": "",
        "LOG_LEVEL": "DEBUG",
        "CONSUMER_POLL_SECONDS": "0.05",
        "CONSUMER_BATCH_SIZE": "10",
        "RELAY_BATCH_SIZE": "10",
        "EVENT_ARCHIVE_PATH": settings.EVENT_ARCHIVE_PATH,
        **env,
    }
    out = log_file.open("ab")
    return subprocess.Popen(
        [sys.executable, "manage.py", *args], cwd=Path(settings.BASE_DIR), env=full_env, stdout=out, stderr=out
    )


def stop(process: subprocess.Popen[bytes], timeout: float = 30) -> int:
    if process.poll() is None:
        process.terminate()
    return process.wait(timeout=timeout)


def terminate_backends(application_name_like: str) -> int:
    """pg_terminate_backend every session of the test database whose application_name matches."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE %s",
            [application_name_like],
        )
        return int(cursor.fetchone()[0])


def lease_sessions(name: str) -> list[str]:
    """application_name of the sessions holding (or standing by for) lease `name`."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name LIKE %s",
            [f"cartlog-lease {name} pid=%"],
        )
        return [row[0] for row in cursor.fetchall()]


def lease_holder_pid(name: str) -> int | None:
    """The pid of the process whose lease session holds the advisory lock `name` (in this database: other
    test databases on the same server hold locks of the same key)."""
    from consumers.lease import lock_key

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND a.datname = current_database() "
            "AND a.application_name LIKE 'cartlog-lease %%' "
            "AND ((l.classid::bigint << 32) | l.objid::bigint) = %s",
            [lock_key(name)],
        )
        row = cursor.fetchone()
    return int(row[0].rpartition("pid=")[2]) if row else None


def outage(seconds: float) -> None:
    """The database is away for `seconds`: no new session, and every session but ours is cut."""
    from eventlog.sessions import connection_kwargs
    from tests.runtime_role import owner

    name = connection.settings_dict["NAME"]
    # A database cannot refuse connections while the session saying so is inside it: ask from `postgres`,
    # as the database's owner (the runtime role may not ALTER DATABASE).
    admin_kwargs = {**connection_kwargs("cartlog-fault-admin"), "dbname": "postgres"}
    if (role := owner()) is not None:
        admin_kwargs |= {"user": role["USER"], "password": role.get("PASSWORD") or None}
    with psycopg.connect(**admin_kwargs) as admin:
        admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        try:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                terminate_backends("%")
                time.sleep(0.2)
        finally:
            admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')


def committed_ranges(log_files: Iterable[Path], what: str) -> list[tuple[int, int, str]]:
    """(first, last, file) of every batch `what` ("consumer NAME" or "relay") committed, by position."""
    pattern = re.compile(rf"{re.escape(what)} (?:committed \d+ events, positions|confirmed positions) (\d+)\.\.(\d+)")
    found = []
    for path in log_files:
        for match in pattern.finditer(path.read_text(errors="replace")):
            found.append((int(match.group(1)), int(match.group(2)), path.name))
    return sorted(found)


def assert_no_batch_twice(ranges: list[tuple[int, int, str]]) -> None:
    """No position inside two committed batches (of one consumer, across all its processes)."""
    for (first_a, last_a, file_a), (first_b, last_b, file_b) in itertools.pairwise(ranges):
        assert first_b > last_a, f"{file_a} committed {first_a}..{last_a} and {file_b} {first_b}..{last_b}"


def wait_for(condition: Callable[[], object], timeout: float = 60, what: str = "condition") -> float:
    """Wait until `condition()` is truthy; return how long it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, f"timed out waiting for {what}"
        time.sleep(0.05)
    return time.monotonic() - started


def report(line: str) -> None:
    """Measured recovery times: printed (pytest -s) and kept in var/recovery-times.log."""
    print(f"RECOVERY {line}")
    path = Path(settings.BASE_DIR) / "var" / "recovery-times.log"
    path.parent.mkdir(exist_ok=True)
    with path.open("a") as out:
        out.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {connection.vendor} {line}\n")
