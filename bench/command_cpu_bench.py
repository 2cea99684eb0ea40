"""The writer's own CPU per cart command, counted in instructions (callgrind), not seconds.

    scripts/bench.sh command_cpu      (or: .venv/bin/python -m bench.command_cpu_bench --help)

On a machine shared with other work, commands per second move with the load; the
instructions a writer process executes per command do not. This runs one writer
(the same sessions as the commands benchmark: start a cart, add three items) under
`valgrind --tool=callgrind` twice, for a short and a long run, on a fresh database,
and reports the difference per command, so that start-up (Python, Django, the
connection) cancels out. PostgreSQL's own CPU is not in it: that is the server's.

To compare two versions of the code, run this in each checkout (a second one made
with `git worktree add`), one after the other; the figures do not depend on the load.
Needs valgrind (Debian's package) and PostgreSQL at BENCH_PG_URL.
"""

import argparse
import os
import shutil
import sys

from bench import callgrind, databases

DB = "cartlog_bench_cpu"
COMMANDS_PER_SESSION = 4  # StartCart and three AddToCart (bench/workloads.py: SKUS)
WARM_UP = 20  # sessions before counting starts in both runs (caches, prepared statements)


def sessions(url: str, count: int) -> None:
    """The measured process: `count` sessions after the warm-up (run under callgrind)."""
    from bench.workloads import CartlogCommands

    writer = CartlogCommands(url)
    for _ in range(WARM_UP + count):
        writer.session()


def instructions(url: str, count: int) -> int:
    command = [sys.executable, "-m", "bench.command_cpu_bench", "--run-sessions", str(count), "--url", url]
    return callgrind.instructions(command, {**os.environ, "LOG_LEVEL": "WARNING"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", type=int, default=20, help="sessions in the short run")
    parser.add_argument("--long", type=int, default=100, help="sessions in the long run")
    parser.add_argument("--db", default=DB, help="the throwaway database's name (dropped and made anew)")
    parser.add_argument("--run-sessions", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_sessions is not None:
        sessions(args.url, args.run_sessions)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    url = databases.recreate(args.db)
    databases.migrate_cartlog(url)
    print(f"counting {args.short} and {args.long} sessions under callgrind (a minute or two each)...", flush=True)
    short, long = instructions(url, args.short), instructions(url, args.long)
    per_command = (long - short) / ((args.long - args.short) * COMMANDS_PER_SESSION)
    print(f"writer instructions per command: {per_command:,.0f} ({short:,} and {long:,} in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
