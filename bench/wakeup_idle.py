"""Idle CPU of `run_consumers`, and of the PostgreSQL sessions serving it (bench/wakeup_bench.py)."""

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.databases import ROOT

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, all its threads (fields 14 and 15 of /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def backends(dbname: str) -> list[int]:
    """Server pids of every session on the bench database but ours (the process under test's)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [dbname])
        return [int(row[0]) for row in cursor.fetchall()]


def idle_cpu(url: str, dbname: str, settings_module: str, seconds: float) -> tuple[float, float | None]:
    """(% of a core for run_consumers, % for the PostgreSQL backends serving it; None if unreadable)."""
    from django.db import connection

    connection.close()  # ours is not one of the backends measured
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": settings_module, "LOG_LEVEL": "WARNING",
           "KAFKA_BOOTSTRAP_SERVERS": ""}  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "manage.py", "run_consumers", "--transport", "table"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(max(10.0, seconds / 2))  # started, caught up, leases taken, LISTEN up
        assert process.poll() is None, "run_consumers exited"
        servers = backends(dbname)
        before, server_before = cpu_seconds(process.pid), server_cpu(servers)
        start = time.monotonic()
        time.sleep(seconds)
        took = time.monotonic() - start
        own = (cpu_seconds(process.pid) - before) / took * 100
        server_after = server_cpu(servers)
        server = None if server_before is None or server_after is None else (server_after - server_before) / took * 100
        return own, server
    finally:
        process.terminate()
        process.wait(30)


def server_cpu(pids: list[int]) -> float | None:
    try:
        return sum(cpu_seconds(pid) for pid in pids)
    except (OSError, ValueError):
        return None  # a backend ended, or the server runs elsewhere
