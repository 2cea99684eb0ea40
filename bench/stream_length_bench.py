"""The same cart command at 20, 1,000 and 10,000 events: flat with snapshots, growing without.

    scripts/bench.sh stream_length     (or: .venv/bin/python -m bench.stream_length_bench --help)

On a fresh PostgreSQL database, carts are filled to each length through the
command handler (which writes a snapshot every `carts.snapshots.EVERY` versions),
then an UpdateCartQuantity is timed on each, many times, by two handlers in the
same run: cartlog's (newest snapshot + the events after it) and the same handler
without snapshots (the whole stream folded, as before snapshots). Each timed
command runs in full (load, decide, append, inline view, idempotency) inside a
transaction that is then rolled back, so the cart stays at its length; the
commit it leaves out costs the same at any length. 10,025 is the average case
(25 events after the newest snapshot); 10,049 the worst (49 events after it, and
the timed command writes the next snapshot). Medians of all rounds.
"""

import argparse
import os
import statistics
import time
from dataclasses import replace
from datetime import UTC, datetime

from bench import databases, report

DB = "cartlog_bench_streams"
LENGTHS = (20, 1_000, 10_000, 10_025, 10_049)


def setup() -> None:
    url = databases.recreate(DB)
    databases.migrate_cartlog(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def fill(length: int) -> str:
    """A cart with exactly `length` events: started, one item, then quantity changes."""
    from carts import services
    from carts.handler import Context
    from kernel.principal import Principal

    context = Context(actor=Principal.user(1))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 1)
    for n in range(3, length + 1):
        services.update_quantity(context, cart_id, "COF-001", 2 + n % 2)
    return cart_id


def vacuum() -> None:
    """What autovacuum does soon after a burst of writes: fresh statistics, no dead rows in the way."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("eventlog_event", "carts_snapshot", "projection_cart_view"):
            cursor.execute(f"VACUUM ANALYZE {table}")


def timed(handler: object, cart_id: str, commands: int) -> list[float]:
    from django.db import transaction
    from django.utils import timezone

    from carts import commands as c
    from carts.handler import Context
    from kernel.principal import Principal

    context, took = Context(actor=Principal.user(1)), []
    for n in range(commands):
        command = c.UpdateCartQuantity(cart_id=cart_id, at=timezone.now(), sku="COF-001", quantity=5 + n % 2)
        start = time.perf_counter()
        with transaction.atomic():
            handler.handle(command, context)  # type: ignore[attr-defined]
            transaction.set_rollback(True)
        took.append((time.perf_counter() - start) * 1000)
    return took


def run(rounds: int, commands: int) -> dict[tuple[str, int], float]:
    from carts.handler import installed

    carts = {length: fill(length) for length in LENGTHS}
    vacuum()
    with_snapshots = installed()
    handlers = {"snapshots": with_snapshots, "whole stream": replace(with_snapshots, snapshots=None)}
    samples: dict[tuple[str, int], list[float]] = {}
    for round_no in range(1, rounds + 1):
        for length, cart_id in carts.items():
            for name, handler in handlers.items():
                took = timed(handler, cart_id, commands)
                vacuum()  # the rolled-back appends leave dead index entries at the stream's end
                samples.setdefault((name, length), []).extend(took)
                print(f"round {round_no} {name:12} {length:>6} events: {statistics.median(took):7.2f} ms", flush=True)
    return {key: statistics.median(values) for key, values in samples.items()}


def table(m: dict[tuple[str, int], float]) -> str:
    lines = [
        "| events in the cart | with snapshots, ms | vs 20 events | whole stream folded, ms | vs 20 events |",
        "|---:|---:|---:|---:|---:|",
    ]
    for length in LENGTHS:
        ours, whole = m[("snapshots", length)], m[("whole stream", length)]
        lines.append(
            f"| {length:,} | {ours:.2f} | {ours / m[('snapshots', 20)]:.2f}x | {whole:.2f} |"
            f" {whole / m[('whole stream', 20)]:.2f}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commands", type=int, default=100, help="timed commands per cart, handler and round")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(argv)
    setup()
    load = os.getloadavg()[0]
    m = run(args.rounds, args.commands)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        f"{when}; {os.cpu_count()} CPUs (load before: {load:.1f}); UpdateCartQuantity, median of "
        f"{args.rounds} rounds x {args.commands} commands per cell, each rolled back after it ran."
    )
    result = f"{header}\n\n{table(m)}\n"
    print("\n" + result)
    if not args.no_doc and not report.write_results("stream_length", result):
        print("docs/benchmarks.md has no `<!-- results: stream_length -->` block; not written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
