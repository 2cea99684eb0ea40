"""Spark (local[2]) beside DuckDB: the analytics and recommendation jobs over the same Parquet archive.

    scripts/bench.sh spark   (or: nice -n 10 .venv/bin/python -m bench.spark_bench [--events 1000000,5000000]
                              [--rounds 3] [--master local[2]])

For each scale, an archive of that many cart events is written straight to
Parquet in the archive's layout by spark_jobs/sample_archive.py (the simulator
through the log makes ~6k events/s, too slow for 5M here); its write time is
reported as "archive write". Then, per round, in the same process and on the
same files:
  - Spark: spark_jobs.analytics.transform and spark_jobs.recommendations.transform
    (association rules and the co-occurrence fallback) over common.read_archive, every output
    collected to the driver, as analytics.pipeline does (one session, started once
    before the clock runs; what several views build alike cached once per round and
    shared by both jobs, common.cart_events_cached; the generated archive is typed
    throughout, so each view reads its cart columns from Parquet);
  - DuckDB (threads=2, the same two cores): the same views as SQL
    (bench/spark_duckdb_sql.py), every result fetched.
Medians over the rounds; the 1M -> 5M scaling ratio of each. Beside each wall time, the
CPU time the engine's process used meanwhile (Spark's JVM, DuckDB's Python process): on a
machine shared with other work it moves less with the load than wall time does. The real archiver
(analytics.archive) is timed apart, over a log the bulk simulator writes to a
fresh PostgreSQL database (--archiver-events, default 300k), and its rate
extrapolated to 1M and 5M. The two engines'
summaries are checked to agree before any figure is reported.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import spark_duckdb_sql as duck
from bench.report import write_results
from spark_jobs.sample_archive import catalog_path, generate


def main(argv: list[str]) -> int:
    args = parse(argv)
    if args.one_run:
        one_run(args.one_run, args.master)
        return 0
    if args.archiver_events:
        archiver = measure_archiver(args.archiver_events)
        print(archiver)
        if not args.no_write:
            write_results("spark-archiver", archiver)
    if args.small_run:
        small = measure_small_run(args.small_run, args.master, args.rounds)
        print(small)
        if not args.no_write:
            write_results("spark-small", small)
    if not args.events:
        return 0
    from pyspark.sql import SparkSession

    from spark_jobs import common

    spark: SparkSession = common.spark_session(
        # Sized as analytics.pipeline.run_all sizes its session (SPARK_DRIVER_MEMORY unset) for the largest archive.
        "cartlog-bench",
        args.master,
        **{"spark.ui.enabled": "false", **common.sized_for(max(args.events))},
    )
    spark.sparkContext.setLogLevel("ERROR")
    results: dict[int, dict[str, Any]] = {}
    work = Path(tempfile.mkdtemp(prefix="cartlog-spark-bench-"))
    try:
        for events in args.events:
            root = work / f"archive-{events}"
            began = time.perf_counter()
            written = generate(root, events, seed=1)
            generated = time.perf_counter() - began
            size = sum(f.stat().st_size for f in root.rglob("*.parquet"))
            print(f"{written:,} events, {size / 1e6:.0f} MB Parquet, written in {generated:.1f} s", flush=True)
            results[written] = {"archive write": generated, "bytes": size, **measure(spark, root, written, args.rounds)}
            shutil.rmtree(root)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        spark.stop()
    markdown = report(results, args)
    print(markdown)
    if not args.no_write and not write_results("spark", markdown):
        print("docs/benchmarks.md has no results block 'spark'; not written", file=sys.stderr)
    return 0


def measure(spark: Any, root: Path, through: int, rounds: int) -> dict[str, Any]:
    from spark_jobs import analytics, common, recommendations

    # Read from Parquet as analytics.pipeline reads its export (a frame built in the driver
    # would start a Python worker the pipeline never starts).
    catalog = common.read_catalog(spark, catalog_path(root))

    # As analytics.pipeline runs them: inside common.cart_events_cached, the parts several views
    # build alike computed once and shared by both jobs, on the clock (the archive is typed: no parse).
    events = common.read_archive(spark, root, through)
    parsed = not common.archive_is_typed(root, through)

    def spark_jobs(clock: Callable[[str], None]) -> dict[str, Any]:
        # The two jobs DuckDB's queries match (the abandoned carts are not among them): their parts.
        with common.cart_events_cached(events, (*analytics.REUSED, *recommendations.REUSED), parsed=parsed):
            views = common.collect_all(analytics.transform(events, catalog))
            clock("Spark analytics")
            rules = recommendations.transform(events)["recommendations"].collect()
            clock("Spark recommendations")
        return {"Spark analytics": views, "Spark recommendations": rules}

    connection = duck.connect(threads=2)

    def duck_jobs(clock: Callable[[str], None]) -> dict[str, Any]:
        views = duck.analytics(connection, str(root), through)
        clock("DuckDB analytics")
        rules = duck.recommendations(connection, str(root), through)
        clock("DuckDB recommendations")
        return {"DuckDB analytics": views, "DuckDB recommendations": rules}

    runs: dict[str, list[float]] = {}
    outputs: dict[str, Any] = {}
    # CPU time beside wall time: on a machine shared with other work it moves less with the load.
    # Spark's is its JVM's (driver and executors, local[2]); DuckDB's this process's.
    cpu = {spark_jobs: process_cpu(spark._jvm.java.lang.ProcessHandle.current().pid()), duck_jobs: time.process_time}
    for round_ in range(rounds):
        for engine in (spark_jobs, duck_jobs):
            outputs |= engine(Clock(runs, f"  round {round_ + 1}", cpu[engine]))
    _check_same_figures(outputs["Spark analytics"]["summary"][0], outputs["DuckDB analytics"]["summary"][0])
    planted = [r for r in outputs["Spark recommendations"] if r.sku == "BOK-001" and r.rank == 1]
    assert planted and planted[0].recommended_sku == "BOK-006", planted
    return {name: statistics.median(times) for name, times in runs.items()} | {"runs": runs}


def measure_small_run(events: int, master: str, rounds: int) -> str:
    """Wall time of a whole run over a small archive in a fresh process: Python and JVM start, session,
    every job; each round once without the driver's class archive (the baseline) and once with it."""
    import os
    import subprocess

    from spark_jobs import class_archive

    began = time.perf_counter()
    shared = class_archive.build()  # at once if it is there already (scripts/setup.sh builds it)
    built = time.perf_counter() - began
    walls: dict[str, list[float]] = {"without": [], "with": []}
    with tempfile.TemporaryDirectory(prefix="cartlog-spark-small-") as folder:
        written = generate(Path(folder), events, seed=1)
        for _ in range(rounds):
            for label, archive in (("without", "off"), ("with", str(shared or "off"))):
                began = time.perf_counter()
                command = [sys.executable, "-m", "bench.spark_bench", "--one-run", folder, "--master", master]
                subprocess.run(command, check=True, env={**os.environ, class_archive.ENV: archive})
                walls[label].append(time.perf_counter() - began)
    without, with_ = statistics.median(walls["without"]), statistics.median(walls["with"])
    return (
        f"Run: `nice -n 10 .venv/bin/python -m bench.spark_bench --events '' --small-run {events}`: a fresh Python "
        f"process starts a `{master}` session (common.spark_session), runs every job over a {written:,}-event archive "
        f"as analytics.pipeline does (abandoned carts included; the parts several views share cached, every "
        f"output collected) and stops; "
        f"each round once without the driver's class archive (spark_jobs/class_archive.py) and once with it "
        f"({'built in ' + format(built, '.0f') + ' s before the rounds' if built > 1 else 'built before'}). "
        f"Wall time, median of {rounds}: **{with_:.1f} s** with it, {without:.1f} s without ({with_ / without:.2f}x; "
        f"with: {', '.join(f'{w:.1f}' for w in walls['with'])} s; without: "
        f"{', '.join(f'{w:.1f}' for w in walls['without'])} s)."
    )


def one_run(archive: str, master: str) -> None:
    """The process `measure_small_run` times: what analytics.pipeline.run_all runs in Spark."""
    from spark_jobs import abandoned_carts, common, every_job

    sized = common.sized_for(common.checkpoint_position(archive))  # as analytics.pipeline.run_all does, by default
    spark = common.spark_session("cartlog-bench-small", master, **{"spark.ui.enabled": "false", **sized})
    spark.sparkContext.setLogLevel("ERROR")
    catalog = common.read_catalog(spark, catalog_path(Path(archive)))
    events = common.read_archive(spark, archive)
    parsed = not common.archive_is_typed(archive)
    with common.cart_events_cached(events, every_job.REUSED, parsed=parsed):
        # Every job's outputs, the abandoned carts' too, as the pipeline collects them.
        common.collect_all(every_job.outputs(events, catalog, **abandoned_carts.rule_from_env()))
    spark.stop()


class Clock:
    """Called after each step: the time since the step before goes to `runs[name]`, and the CPU
    time `cpu()` counted meanwhile (the engine's process) to `runs[name + CPU]`."""

    def __init__(self, runs: dict[str, list[float]], label: str, cpu: Callable[[], float]) -> None:
        self.runs, self.label, self.cpu = runs, label, cpu
        self.last, self.last_cpu = time.perf_counter(), cpu()

    def __call__(self, name: str) -> None:
        now, now_cpu = time.perf_counter(), self.cpu()
        self.runs.setdefault(name, []).append(now - self.last)
        self.runs.setdefault(name + CPU, []).append(now_cpu - self.last_cpu)
        self.last, self.last_cpu = now, now_cpu
        print(f"{self.label}: {name} {self.runs[name][-1]:.2f} s ({self.runs[name + CPU][-1]:.1f} s CPU)", flush=True)


CPU = " CPU"


def process_cpu(pid: int) -> Callable[[], float]:
    """User + system CPU seconds of process `pid` so far (all its threads), from /proc."""
    import os

    ticks = os.sysconf("SC_CLK_TCK")

    def seconds() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    return seconds


def measure_archiver(events: int) -> str:
    """The real archiver (analytics.archive) over a log the bulk simulator wrote to a fresh PostgreSQL database."""
    import os

    from bench.databases import migrate_cartlog, recreate

    url = recreate("cartlog_bench_spark")
    migrate_cartlog(url)
    os.environ.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="cartlog.settings", LOG_LEVEL="WARNING")
    import django
    from django.conf import settings

    django.setup()
    from analytics.archive import archive
    from eventlog import store
    from simulator.simulate import simulate

    with tempfile.TemporaryDirectory(prefix="cartlog-archiver-bench-") as folder:
        settings.EVENT_ARCHIVE_PATH = folder
        simulate(carts=max(events // 4, 1), seed=1, days=30, bulk=True)
        logged = store.head_position()
        began = time.perf_counter()
        result = archive()
        seconds = time.perf_counter() - began
    rate = result.written / seconds
    return (
        f"Run: `nice -n 10 .venv/bin/python -m bench.spark_bench --archiver-events {events}` "
        f"(PostgreSQL, the bulk simulator's log of {logged:,} events).\n\n"
        f"The archiver (`analytics.archive.archive()`, batches of 50,000): {result.written:,} events in "
        f"{seconds:.1f} s = {rate:,.0f} events/s, {result.files} files. At that rate, 1M events take about "
        f"{1_000_000 / rate:.0f} s and 5M about {5_000_000 / rate:.0f} s (extrapolated, linear: every batch is "
        "the same read by position and the same Parquet write)."
    )


def _check_same_figures(spark_row: Any, duck_row: tuple[Any, ...]) -> None:
    ours = (spark_row.carts_started, spark_row.carts_with_items, spark_row.carts_checked_out, spark_row.revenue)
    theirs = (duck_row[0], duck_row[1], duck_row[2], duck_row[4])
    assert ours == theirs, f"Spark {ours} != DuckDB {theirs}"


COLUMNS = ("archive write", "Spark analytics", "Spark recommendations", "DuckDB analytics", "DuckDB recommendations")


def report(results: dict[int, dict[str, Any]], args: argparse.Namespace) -> str:
    scales = sorted(results)
    lines = [
        f"Run: `nice -n 10 .venv/bin/python -m bench.spark_bench --events {','.join(map(str, args.events))} "
        f"--rounds {args.rounds} --master {args.master}`, medians of {args.rounds} rounds, seconds "
        "(archive write: one run, the generator's Parquet write).",
        "",
        "| events | Parquet | " + " | ".join(COLUMNS) + " | Spark total | DuckDB total |",
        "|---|---|" + "---|" * (len(COLUMNS) + 2),
    ]
    for events in scales:
        r = results[events]
        spark_total = r["Spark analytics"] + r["Spark recommendations"]
        duck_total = r["DuckDB analytics"] + r["DuckDB recommendations"]
        figures = " | ".join(f"{r[c]:.2f}" for c in COLUMNS)
        lines.append(f"| {events:,} | {r['bytes'] / 1e6:.0f} MB | {figures} | {spark_total:.2f} | {duck_total:.2f} |")
    lines += ["", "Spark total / DuckDB total, wall and CPU (medians; CPU: Spark's JVM, DuckDB's process):", ""]
    for events in scales:
        r = results[events]
        wall = (r["Spark analytics"] + r["Spark recommendations"]) / (
            r["DuckDB analytics"] + r["DuckDB recommendations"]
        )
        spark_cpu = r["Spark analytics" + CPU] + r["Spark recommendations" + CPU]
        duck_cpu = r["DuckDB analytics" + CPU] + r["DuckDB recommendations" + CPU]
        lines.append(
            f"- {events:,}: wall {wall:.1f}x; CPU {spark_cpu:.1f} s / {duck_cpu:.1f} s = {spark_cpu / duck_cpu:.1f}x"
        )
    if len(scales) >= 2:
        small, large = results[scales[0]], results[scales[-1]]
        factor = scales[-1] / scales[0]
        lines += ["", f"Scaling {scales[0]:,} -> {scales[-1]:,} events (x{factor:.1f} data), time ratio:", ""]
        for c in COLUMNS[1:]:
            lines.append(f"- {c}: x{large[c] / small[c]:.2f}")
        spark_ratio = (large["Spark analytics"] + large["Spark recommendations"]) / (
            small["Spark analytics"] + small["Spark recommendations"]
        )
        duck_ratio = (large["DuckDB analytics"] + large["DuckDB recommendations"]) / (
            small["DuckDB analytics"] + small["DuckDB recommendations"]
        )
        lines.append(f"- Spark total: x{spark_ratio:.2f}; DuckDB total: x{duck_ratio:.2f}")
    lines += ["", "Every round (seconds):", ""]
    for events in scales:
        runs = results[events]["runs"]
        lines.append(f"- {events:,}: " + "; ".join(f"{k} {', '.join(f'{t:.2f}' for t in v)}" for k, v in runs.items()))
    return "\n".join(lines)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--events", type=lambda s: [int(x) for x in s.split(",") if x], default=[1_000_000, 5_000_000],
        help="comma-separated archive sizes ('' for none)",
    )  # fmt: skip
    parser.add_argument(
        "--archiver-events", type=int, default=0, help="also time the real archiver over a log this big"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument(
        "--small-run", type=int, default=1000, help="also time a whole run over an archive this small (0: no)"
    )
    parser.add_argument("--one-run", metavar="ARCHIVE", help=argparse.SUPPRESS)  # the process --small-run times
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
