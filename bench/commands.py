"""Benchmark 1: cart commands per second through the command layer (no HTTP).

    scripts/bench.sh commands     (or: .venv/bin/python -m bench.commands --help)

Side by side in each round, on fresh PostgreSQL databases: a plain single-row
INSERT + COMMIT loop (the ceiling), cartlog's carts.services, and the
`eventsourcing` library running the same commands (with its defaults, and with
its aggregate cache), with 1 and 4 writer processes on distinct carts. Rounds interleave the workloads so that noise
from other load on the machine falls on all of them alike; medians are quoted.
"""

import argparse
import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from bench import databases, report
from bench.runner import Sample, measure, medians

CARTLOG_DB = "cartlog_bench"
ES_DB = "cartlog_bench_es"
OUT = Path(__file__).resolve().parent.parent / "var" / "bench"


def prepare() -> dict[str, str]:
    cartlog = databases.recreate(CARTLOG_DB)
    databases.migrate_cartlog(cartlog)
    databases.create_ceiling_table(cartlog)
    es = databases.recreate(ES_DB)
    from bench.workloads import EventsourcingCommands

    EventsourcingCommands(es, create_tables=True)  # once, before the writers start
    return {"plain_insert": cartlog, "cartlog": cartlog, "eventsourcing": es, "eventsourcing_cached": es}


def run(rounds: int, seconds: float, writer_counts: list[int]) -> list[Sample]:
    urls = prepare()
    samples = []
    for round_no in range(1, rounds + 1):
        for writers in writer_counts:
            for name in ("plain_insert", "cartlog", "eventsourcing", "eventsourcing_cached"):
                sample = measure(name, urls[name], writers, seconds)
                print(f"round {round_no} {name:14} {writers} writer(s): {sample.rate:8.0f}/s", flush=True)
                samples.append(sample)
    return samples


def table(samples: list[Sample], writer_counts: list[int]) -> str:
    m = medians(samples)
    lines = [
        "| writers | plain INSERT rows/s | cartlog commands/s | eventsourcing commands/s"
        " | eventsourcing, aggregate cache | cartlog / plain | cartlog / eventsourcing | cartlog / cached |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for w in writer_counts:
        plain, ours, es = m[("plain_insert", w)], m[("cartlog", w)], m[("eventsourcing", w)]
        cached = m[("eventsourcing_cached", w)]
        lines.append(
            f"| {w} | {plain:,.0f} | {ours:,.0f} | {es:,.0f} | {cached:,.0f} | {ours / plain:.2f}"
            f" | {ours / es:.2f}x | {ours / cached:.2f}x |"
        )
    return "\n".join(lines)


def context_line(rounds: int, seconds: float) -> str:
    pg = subprocess.run(
        ["psql", databases.SERVER_URL, "-Atc", "SHOW server_version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    return (
        f"{when}; {os.cpu_count()} CPUs (load before: {load:.1f}), Python {platform.python_version()}, "
        f"PostgreSQL {pg}; medians of {rounds} rounds of {seconds:g} s per cell; writers are processes."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--writers", default="1,4", help="comma-separated writer counts")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(argv)
    writer_counts = [int(w) for w in args.writers.split(",")]

    header = context_line(args.rounds, args.seconds)
    samples = run(args.rounds, args.seconds, writer_counts)
    result = f"{header}\n\n{table(samples, writer_counts)}\n"
    print("\n" + result)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "commands.json").write_text(json.dumps([s.__dict__ for s in samples], indent=1))
    if not args.no_doc and not report.write_results("commands", result):
        print("docs/benchmarks.md has no `<!-- results: commands -->` block; not written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
