"""PostgreSQL's own CPU per cart command: the writer's session, and every other session of the database.

    scripts/bench.sh server_cpu      (or: .venv/bin/python -m bench.server_cpu_bench --help)

One writer runs the command benchmark's sessions (start a cart, add three items) on a
fresh database, and the CPU time of each server process of that database is read from
/proc before and after (user + system, as the kernel counts it): the writer's own session,
and the others, such as the LISTEN session of the writer's read caches, which PostgreSQL
wakes at every notifying commit of the database, whatever channel it listens on. CPU
time, not a rate: other work on the machine moves it little. Needs PostgreSQL on this
machine (its processes' /proc) at BENCH_PG_URL.
"""

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import databases

DB = "cartlog_bench_server_cpu"
COMMANDS_PER_SESSION = 4  # StartCart and three AddToCart (bench/workloads.py: SKUS)
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (fields 14 and 15 of /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def sessions_of_this_database() -> dict[int, str]:
    """Every server process of the current database: pid -> what it is (this one is 'writer')."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, CASE WHEN pid = pg_backend_pid() THEN 'writer' ELSE coalesce(nullif(application_name, ''),"
            " left(query, 40)) END FROM pg_stat_activity WHERE datname = current_database()"
        )
        return {pid: what.split(" pid=")[0] for pid, what in cursor.fetchall()}  # the name, not the writer's pid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1500, help="sessions per round (four commands each)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    url = databases.recreate(DB)
    databases.migrate_cartlog(url)
    from bench.workloads import CartlogCommands

    writer = CartlogCommands(url)
    for _ in range(50):  # prepared statements, caches, the LISTEN session connected
        writer.session()
    processes = sessions_of_this_database()
    per_command: dict[str, list[float]] = {}
    for round_no in range(1, args.rounds + 1):
        before = {pid: cpu_seconds(pid) for pid in processes}
        for _ in range(args.sessions):
            writer.session()
        commands = args.sessions * COMMANDS_PER_SESSION
        for pid, what in processes.items():
            per_command.setdefault(what, []).append((cpu_seconds(pid) - before[pid]) / commands * 1e6)
        print(f"round {round_no}: " + ", ".join(f"{what} {us[-1]:.0f} µs" for what, us in per_command.items()))
    print("\nPostgreSQL CPU per command, median of the rounds:")
    for what, us in per_command.items():
        print(f"  {what}: {statistics.median(us):.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
