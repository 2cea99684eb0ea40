"""Consumers woken by the log: append → view latency, and idle CPU, with LISTEN/NOTIFY and with the poll alone.

    scripts/bench.sh wakeup   (or: .venv/bin/python -m bench.wakeup_bench [--samples 100] [--rounds 3]
                               [--idle-seconds 20] [--own-cluster])

Latency: one AddToCart at a time through carts.services, then the clock runs
from its commit until the `product_activity` row of that SKU shows its
position, on the table transport (`run_consumers`' runner in a thread of this
process). Each round measures both, side by side:
* NOTIFY: the shipped transport; it waits for the append's announcement
  (eventlog/announcer.py, consumers/wakeup.py), its fallback poll 5 s;
* poll: the same transport with its idle wait taken away (the runner then
  sleeps CONSUMER_POLL_SECONDS between empty reads, as before NOTIFY).
Before each append the bench sleeps a random fraction of a poll interval, so
samples do not line up with the poller.

Write cost (bench/wakeup_writes.py): cart commands/s with 1 and 4 writers, appends
announced in their own transaction (as before) and by the process after their commit
(shipped).

Idle CPU: `manage.py run_consumers` (every registered consumer, table
transport) started on its own, left to settle, then its CPU time (utime +
stime of every thread, /proc/<pid>/stat) over --idle-seconds with nothing to
do, and the CPU time of the PostgreSQL backends serving it over the same
interval; with LISTEN, and with LISTEN off (bench/settings_poll.py).
"""

import argparse
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.databases import migrate_cartlog, recreate
from bench.view_latency import timed
from bench.wakeup_idle import idle_cpu
from bench.wakeup_writes import write_cost

DBNAME = "cartlog_bench_wakeup"
POLL = 0.0005  # the NOTIFY path answers in milliseconds: look more often than the relay's bench
MODES = ("NOTIFY", "poll")


def main(argv: list[str]) -> int:
    args = parse(argv)
    cluster = own_cluster() if args.own_cluster else None
    try:
        run(args)
    finally:
        if cluster is not None:
            cluster.destroy()
    return 0


def own_cluster() -> Any:
    """A private PostgreSQL (tests/pg_cluster.py: initdb on a free port, fsync off) for this run.

    Gap-safe reads wait for the oldest writing transaction of the whole server, in
    any database: on a shared server, other people's open transactions hold the
    consumer back (seconds, with a test's idle-in-transaction session), which this
    benchmark would then measure instead of the wake-up.
    """
    from bench import databases
    from tests.pg_cluster import Cluster, bindir

    found = bindir()
    if found is None:
        raise SystemExit("no initdb/postgres found for --own-cluster")
    cluster = Cluster(found)
    cluster.init()
    cluster.start()
    databases.SERVER_URL = cluster.url()
    return cluster


def run(args: argparse.Namespace) -> None:
    url = recreate(DBNAME)
    migrate_cartlog(url)
    setup_django(url)
    latencies: dict[str, list[float]] = {mode: [] for mode in MODES}
    for round_no in range(1, args.rounds + 1):
        for mode in MODES:
            latencies[mode] += transport_latencies(mode, args.samples)
        summary = ", ".join(f"{m} p50 {percentile(latencies[m], 50) * 1000:.1f} ms" for m in MODES)
        print(f"round {round_no}: {summary}", flush=True)
    idle = {
        "LISTEN": idle_cpu(url, DBNAME, "cartlog.settings", args.idle_seconds),
        "poll": idle_cpu(url, DBNAME, "bench.settings_poll", args.idle_seconds),
    }
    writes = write_cost(url, args.write_rounds, args.write_seconds)
    report(args, latencies, idle, writes)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=100, help="latency samples per mode and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="how long idle CPU is measured")
    parser.add_argument("--write-rounds", type=int, default=3, help="rounds of the commands/s comparison (0: none)")
    parser.add_argument("--write-seconds", type=float, default=5.0, help="seconds per commands/s cell")
    parser.add_argument(
        "--own-cluster", action="store_true", help="a private PostgreSQL for this run, not BENCH_PG_URL's shared one"
    )
    return parser.parse_args(argv)


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()


# --- latency ----------------------------------------------------------------------


class PollOnly:
    """The table transport without its idle wait: the runner polls, as it did before NOTIFY."""

    name = "table"

    def __init__(self) -> None:
        from consumers.transports import TableTransport

        self.inner = TableTransport()

    def fetch(self, consumer: str, categories: Any, limit: int) -> Any:
        return self.inner.fetch(consumer, categories, limit)

    def close(self) -> None:
        self.inner.close()


def transport_latencies(mode: str, samples: int) -> list[float]:
    from consumers import runner
    from consumers.base import ProjectionConsumer
    from consumers.models import Checkpoint
    from consumers.transports import TableTransport
    from eventlog import store
    from projections import product_activity

    Checkpoint.objects.update_or_create(name=product_activity.NAME, defaults={"position": store.head_position()})
    stop = threading.Event()
    factory = TableTransport if mode == "NOTIFY" else PollOnly
    threads = runner.run([ProjectionConsumer(product_activity)], factory, stop)
    try:
        timed(1, first_wait=30, poll=POLL)  # the lease and the LISTEN session come up during this one
        return timed(samples, poll=POLL)
    finally:
        stop.set()
        runner.wait(threads, stop)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def report(
    args: argparse.Namespace,
    latencies: dict[str, list[float]],
    idle: dict[str, tuple[float, float | None]],
    writes: dict[tuple[str, int], float],
) -> None:
    from django.conf import settings

    from bench.report import write_results

    load = os.getloadavg()[0]
    lines = [
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs (load 1 min at the end: "
        f"{load:.1f}); {args.rounds} rounds of {args.samples} samples per mode, alternating; poll interval "
        f"{settings.CONSUMER_POLL_SECONDS} s; idle CPU over {args.idle_seconds:.0f} s; "
        + ("a private PostgreSQL (fsync off)." if args.own_cluster else "the shared PostgreSQL (BENCH_PG_URL)."),
        "",
        "| append → product_activity, table transport | p50 | p99 | max |",
        "|---|---:|---:|---:|",
    ]
    for mode in MODES:
        values = latencies[mode]
        label = "woken by NOTIFY (fallback poll 5 s)" if mode == "NOTIFY" else "poll alone (before)"
        lines.append(
            f"| {label} | {percentile(values, 50) * 1000:,.1f} ms | {percentile(values, 99) * 1000:,.1f} ms "
            f"| {max(values) * 1000:,.1f} ms |"
        )
    lines += ["", "| idle `run_consumers` (every consumer) | process, % of a core | its PostgreSQL sessions |"]
    lines.append("|---|---:|---:|")
    for name, (own, server) in idle.items():
        label = "LISTEN (fallback poll 5 s)" if name == "LISTEN" else f"poll every {settings.CONSUMER_POLL_SECONDS} s"
        lines.append(f"| {label} | {own:.2f} % | {'n/a' if server is None else f'{server:.2f} %'} |")
    if writes:
        lines += [
            "",
            "| cart commands/s (medians) | announced at commit (before) | after commit (shipped) | ratio |",
            "|---|---:|---:|---:|",
        ]
        for writers in (1, 4):
            at, after = writes[("at commit", writers)], writes[("after commit", writers)]
            lines.append(f"| {writers} writer(s) | {at:,.0f} | {after:,.0f} | {after / at:.2f} |")
    markdown = "\n".join(lines)
    print(markdown)
    if not write_results("wakeup", markdown):
        print("(docs/benchmarks.md has no results block for wakeup)")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
