"""Claims decided per second by the validator, and sign-up latency, on each transport.

    scripts/bench.sh claims     (or: .venv/bin/python -m bench.claims_bench [--claims 2000] [--signups 100])

Throughput: N claims over N/5 keys are appended with the validator stopped,
then one validator decides them all; the clock runs from its first decision
to its last (on Kafka, after the relay has delivered and the group has joined).
Latency: sequential sign-ups through accounts.services.sign_up with the
validator and the account creator running, as a shopper would see it.
Medians of several rounds; each round on a fresh database.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.databases import migrate_cartlog, recreate

DBNAME = "cartlog_bench_claims"


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()


def throughput(claims: int, transport: str) -> float:
    from claims import services as claim_services
    from claims.models import Claim
    from claims.validator import Validator
    from consumers import runner
    from consumers.registry import transport_factory

    for i in range(claims):
        claim_services.request("coupon", f"BENCH{i % (claims // 5)}", claimant=f"cart:{i}")
    if transport == "kafka":
        from tests.kafka_helpers import relay_everything

        relay_everything(timeout=600)
    source = transport_factory(transport)()
    validator = Validator()
    started = None
    while Claim.objects.exclude(status="pending").count() < claims or started is None:
        handled = runner.process_batch(validator, source)
        if handled and started is None:
            started = time.perf_counter()
    source.close()
    return claims / (time.perf_counter() - started)


def signup_latencies(signups: int, transport: str) -> list[float]:
    from accounts.services import sign_up
    from tests.claim_helpers import claim_consumers_running

    latencies = []
    with claim_consumers_running(transport=transport):
        sign_up("warmup", "a-long-passphrase", wait_seconds=60)  # the Kafka group joins here
        for i in range(signups):
            began = time.perf_counter()
            result = sign_up(f"bench{i}", "a-long-passphrase", wait_seconds=30)
            latencies.append(time.perf_counter() - began)
            assert result.status == "created", result
    return latencies


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--signups", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    url = recreate(DBNAME)
    migrate_cartlog(url)
    setup_django(url)
    from django.conf import settings
    from django.db import connection

    from tests.kafka_broker import Broker
    from tests.services import tansu_binary

    broker = Broker(str(tansu_binary()), Path(settings.VAR_DIR))
    broker.start()
    settings.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrap
    rates: dict[str, list[float]] = {"table": [], "kafka": []}
    latencies: dict[str, list[float]] = {"table": [], "kafka": []}
    try:
        for round_no in range(1, args.rounds + 1):
            for transport in ("table", "kafka"):
                settings.KAFKA_TOPIC_PREFIX = f"bench{round_no}{transport}{time.monotonic_ns()}"
                with connection.cursor() as cursor:
                    cursor.execute("TRUNCATE eventlog_event, projection_claims, projection_checkpoint,"
                                   " consumer_kafka_progress, auth_user CASCADE")  # fmt: skip
                rate = throughput(args.claims, transport)
                rates[transport].append(rate)
                lat = signup_latencies(args.signups, transport)
                latencies[transport] += lat
                print(f"round {round_no} {transport:5}: {rate:7.0f} claims/s, sign-up p50 "
                      f"{percentile(lat, 50) * 1000:.0f} ms", flush=True)  # fmt: skip
    finally:
        broker.stop()
    lines = [
        f"Command: `scripts/bench.sh claims` ({args.claims} claims over {args.claims // 5} keys, "
        f"{args.signups} sign-ups per round, {args.rounds} rounds; medians).",
        "",
        "| transport | claims decided/s | sign-up p50 | sign-up p99 |",
        "|---|---:|---:|---:|",
    ]
    for transport in ("table", "kafka"):
        p50, p99 = (percentile(latencies[transport], p) * 1000 for p in (50, 99))
        lines.append(f"| {transport} | {statistics.median(rates[transport]):,.0f} | {p50:.0f} ms | {p99:.0f} ms |")
    from bench.report import write_results

    markdown = "\n".join(lines)
    print(markdown)
    if not write_results("claims", markdown):
        print("(docs/benchmarks.md has no results block for claims)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
