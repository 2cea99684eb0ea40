"""Rebuild speed of cart_view over a log of >= 1M events, beside COPY of the same log.

    nice .venv/bin/python bench/rebuild_bench.py [--events 1000000] [--batch-size N] [--fresh] [--rounds 3]

COPY (SELECT <the columns read_all reads> FROM eventlog_event) TO STDOUT is the
physical limit of reading the log; the rebuild reads the same rows, folds them
into a shadow table and swaps it in. Both run in the same process, one after
the other, on the same database (kept between runs: building the log takes a
few minutes; --fresh starts over). Target: >= 60,000 events/s and >= 0.15 of COPY.
The machine may be shared, so the rebuild's CPU is reported too: this
process's, and its PostgreSQL backends' (read from /proc: the server must run
on this machine, else 0).
"""

import argparse
import json
import os
import random
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.databases import ROOT, migrate_cartlog, recreate, url_for
from kernel.principal import Principal

DBNAME = "cartlog_bench_rebuild"
START = datetime(2026, 1, 1, tzinfo=UTC)


def main(argv: list[str]) -> int:
    args = parse(argv)
    prepare(args.database, args.fresh)
    ensure_log(args.events)
    analyze()
    for _ in range(args.rounds):
        copy = measure_copy()
        rebuild = measure_rebuild(args.batch_size)
        report({"copy": copy, "rebuild": rebuild, "ratio": rebuild["events_per_s"] / copy["events_per_s"]})
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument(
        "--batch-size", type=int, default=None, help="events per batch (default: the shop's, REBUILD_BATCH_SIZE)"
    )
    parser.add_argument("--fresh", action="store_true", help="drop and rebuild the benchmark log")
    parser.add_argument("--rounds", type=int, default=1, help="COPY then rebuild, this many times")
    parser.add_argument("--database", default=DBNAME, help=f"the benchmark's own database (default {DBNAME})")
    return parser.parse_args(argv)


def prepare(dbname: str, fresh: bool) -> None:
    import psycopg

    url = url_for(dbname)
    try:
        psycopg.connect(url).close()
        exists = True
    except psycopg.OperationalError:
        exists = False
    if fresh or not exists:
        recreate(dbname)
        migrate_cartlog(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def ensure_log(target: int) -> None:
    """Append whole carts (decided by the real decider) in large transactions until `target` events."""
    from django.db import transaction

    from catalog.models import Product
    from eventlog import store

    products = [(p.sku, p.price) for p in Product.objects.filter(active=True)]
    rng, have = random.Random(42), count_events()
    started = time.monotonic()
    while have < target:
        with transaction.atomic():
            for _ in range(2000):
                cart_id, events = cart_events(rng, products, have)
                store.append(f"cart-{cart_id}", 0, events)
                have += len(events)
        print(f"\rlog: {have:,} events ({time.monotonic() - started:.0f}s)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def cart_events(rng: random.Random, products: list[tuple[str, Decimal]], n: int) -> tuple[str, list[Any]]:
    from carts import commands as c
    from carts.decider import decide, fold, initial_state
    from carts.handler import Context, to_log

    cart_id, at = str(uuid4()), START + timedelta(seconds=n)
    state, new = initial_state(cart_id), []
    chosen = rng.sample(products, rng.randint(1, 4))
    commands: list[c.CartCommand] = [c.StartCart(cart_id=cart_id, at=at, owner=f"user:{n % 5000}")]
    for sku, price in chosen:
        product = c.ProductSnapshot(sku=sku, price=price, active=True)
        commands.append(c.AddToCart(cart_id=cart_id, at=at, sku=sku, quantity=rng.randint(1, 3), product=product))
    if rng.random() < 0.5:
        commands.append(c.UpdateCartQuantity(cart_id=cart_id, at=at, sku=chosen[0][0], quantity=rng.randint(1, 6)))
    if len(chosen) > 1 and rng.random() < 0.3:
        commands.append(c.RemoveFromCart(cart_id=cart_id, at=at, sku=chosen[-1][0]))
    if rng.random() < 0.4:
        commands.append(c.Checkout(cart_id=cart_id, at=at, order_id=str(uuid4()), discount=None))
    context = Context(actor=Principal.parse(f"user:{n % 5000}"))
    for command in commands:
        events = decide(state, command)
        state = fold(state, events)
        new += to_log(events, command, context, None)
    return cart_id, new


def analyze() -> None:
    """Fresh planner statistics, as autovacuum would have them on a live log: without
    them a freshly loaded table's `position > P LIMIT n` reads can become full scans."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE eventlog_event")


def count_events() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM eventlog_event")
        return int(cursor.fetchone()[0])


def measure_copy() -> dict[str, float]:
    from django.db import connection

    from eventlog.store import COLUMNS

    connection.ensure_connection()
    raw = connection.connection
    started, rows, size = time.monotonic(), 0, 0
    with raw.cursor() as cursor, cursor.copy(f"COPY (SELECT {COLUMNS} FROM eventlog_event) TO STDOUT") as copy:
        for row in copy.rows():
            rows += 1
            size += len(row)
    elapsed = time.monotonic() - started
    return {"events": rows, "seconds": elapsed, "events_per_s": rows / elapsed}


def measure_rebuild(batch_size: int | None) -> dict[str, float]:
    from django.conf import settings

    from rebuilds import service
    from rebuilds.models import FINISHED, RebuildRun

    # Always from position 0: a run left over by an interrupted benchmark would be resumed.
    RebuildRun.objects.exclude(status__in=FINISHED).update(status="abandoned")
    started, cpu = time.monotonic(), time.process_time()
    with BackendCpu() as postgres:
        outcome = service.rebuild("cart_view", batch_size=batch_size)
    elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
    return {
        "events": outcome.events_done,
        "seconds": elapsed,
        "events_per_s": outcome.events_done / elapsed,
        "batch_size": batch_size or settings.REBUILD_BATCH_SIZE,
        "python_cpu_seconds": cpu,  # this process only; the machine is shared, so also say how busy it was
        "postgres_cpu_seconds": postgres.seconds,
        "load_average": os.getloadavg()[0],
    }


class BackendCpu:
    """CPU seconds of this process's PostgreSQL backends (the server runs on this machine),
    from /proc/<pid>/stat, sampled every 0.1 s: a backend that exits between two samples
    loses at most its last 0.1 s. 0 when the server's processes cannot be read."""

    def __init__(self) -> None:
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    @property
    def seconds(self) -> float:
        return sum(self.last[pid] - self.first.get(pid, 0.0) for pid in self.last)

    def __enter__(self) -> "BackendCpu":
        import psycopg
        from django.db import connection

        self.conn = psycopg.connect(url_for(connection.settings_dict["NAME"]), autocommit=True)
        self._read()
        self.first = dict(self.last)
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        self.thread.join()
        self.conn.close()

    def _sample(self) -> None:
        while not self.done.wait(0.1):
            self._read()
        self._read()

    def _read(self) -> None:
        own = self.conn.info.backend_pid
        pids = self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> %s", [own]
        ).fetchall()
        tick = os.sysconf("SC_CLK_TCK")
        for (pid,) in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            self.last[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
            self.first.setdefault(pid, 0.0)


def report(results: dict[str, Any]) -> None:
    copy, rebuild = results["copy"], results["rebuild"]
    print(
        f"COPY of the log      {copy['events']:>10,} events {copy['seconds']:7.1f} s {copy['events_per_s']:>10,.0f}/s"
    )
    print(
        f"rebuild cart_view    {rebuild['events']:>10,} events {rebuild['seconds']:7.1f} s"
        f" {rebuild['events_per_s']:>10,.0f}/s (batches of {rebuild['batch_size']:,})"
    )
    print(f"rebuild / COPY       {results['ratio']:.3f}")
    print(
        f"rebuild CPU          Python {rebuild['python_cpu_seconds']:.1f} s,"
        f" PostgreSQL {rebuild['postgres_cpu_seconds']:.1f} s; load average {rebuild['load_average']:.1f}"
    )
    out = ROOT / "var" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    (out / "rebuild.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
