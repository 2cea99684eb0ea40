"""Spark (local[2]) beside DuckDB: the analytics and recommendation jobs over the same Parquet archive.

    scripts/bench.sh spark   (or: nice -n 10 .venv/bin/python -m bench.spark_bench [--events 1000000,5000000]
                              [--rounds 3] [--master local[2]])

For each scale, an archive of that many cart events is written straight to
Parquet in the archive's layout by bench/spark_archive_gen.py (the simulator
through the log makes ~6k events/s, too slow for 5M here); its write time is
reported as "archive write". Then, per round, in the same process and on the
same files:
  - Spark: spark_jobs.analytics.transform and spark_jobs.recommendations.transform
    (FP-Growth + co-occurrence fallback) over common.read_archive, every output
    collected to the driver, as analytics.pipeline does (one session, started once
    before the clock runs);
  - DuckDB (threads=2, the same two cores): the same views as SQL
    (bench/spark_duckdb_sql.py), every result fetched.
Medians over the rounds; the 1M -> 5M scaling ratio of each. The real archiver
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
from bench.spark_archive_gen import catalog_rows, generate


def main(argv: list[str]) -> int:
    args = parse(argv)
    if args.archiver_events:
        archiver = measure_archiver(args.archiver_events)
        print(archiver)
        if not args.no_write:
            write_results("spark-archiver", archiver)
    if not args.events:
        return 0
    from pyspark.sql import SparkSession

    from spark_jobs import common

    spark: SparkSession = common.spark_session(
        "cartlog-bench", args.master, **{"spark.ui.enabled": "false", "spark.driver.memory": "4g"}
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

    catalog = spark.createDataFrame(
        [(s, n, c, __import__("decimal").Decimal(p)) for s, n, c, p in catalog_rows()], common.CATALOG_SCHEMA
    )

    def spark_analytics() -> Any:
        views = analytics.transform(common.read_archive(spark, root, through), catalog)
        return {name: frame.collect() for name, frame in views.items()}

    def spark_recommendations() -> Any:
        return recommendations.transform(common.read_archive(spark, root, through))["recommendations"].collect()

    connection = duck.connect(threads=2)

    def duck_analytics() -> Any:
        return duck.analytics(connection, str(root), through)

    def duck_recommendations() -> Any:
        return duck.recommendations(connection, str(root), through)

    runs: dict[str, list[float]] = {}
    outputs: dict[str, Any] = {}
    steps: dict[str, Callable[[], Any]] = {
        "Spark analytics": spark_analytics, "Spark recommendations": spark_recommendations,
        "DuckDB analytics": duck_analytics, "DuckDB recommendations": duck_recommendations,
    }  # fmt: skip
    for round_ in range(rounds):
        for name, step in steps.items():
            began = time.perf_counter()
            outputs[name] = step()
            runs.setdefault(name, []).append(time.perf_counter() - began)
            print(f"  round {round_ + 1}: {name} {runs[name][-1]:.2f} s", flush=True)
    _check_same_figures(outputs["Spark analytics"]["summary"][0], outputs["DuckDB analytics"]["summary"][0])
    planted = [r for r in outputs["Spark recommendations"] if r.sku == "BOK-001" and r.rank == 1]
    assert planted and planted[0].recommended_sku == "BOK-006", planted
    return {name: statistics.median(times) for name, times in runs.items()} | {"runs": runs}


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
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
