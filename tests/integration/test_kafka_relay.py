"""The relay: every committed event reaches Kafka, keyed and in order, through crashes and outages."""

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from carts import services
from carts.checkout import place_order
from carts.handler import Context
from consumers.models import Heartbeat
from eventlog import store
from eventlog.models import Event
from inventory.services import receive_stock
from kernel.principal import Principal
from relay import config
from tests.fault_helpers import terminate_backends
from tests.kafka_broker import Broker
from tests.kafka_helpers import events_by_key, read_topic, relay_checkpoint, relay_everything
from tests.processes import database_url

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def shop(carts: int, actor: str = "user:1", pause: float = 0.0) -> None:
    context = Context(actor=Principal.parse(actor))
    for _ in range(carts):
        time.sleep(pause)
        cart_id = services.start_cart(context).state.cart_id
        services.add_to_cart(context, cart_id, "COF-001", 2)
        services.add_to_cart(context, cart_id, "KIT-001", 1)
        services.update_quantity(context, cart_id, "COF-001", 3)
        services.checkout(context, cart_id)


@contextmanager
def relay_running() -> Iterator[None]:
    """`run_forever` on a thread of its own, as `run_consumers` runs it, stopped at the end."""
    from relay.relay import run_forever

    stop = threading.Event()
    relay = threading.Thread(target=run_forever, args=(stop,))
    relay.start()
    try:
        yield
    finally:
        stop.set()
        relay.join(timeout=30)


def assert_every_event_in_kafka_in_per_key_order() -> None:
    seen = events_by_key(config.topic("cart"))
    for stream_id, versions in seen.items():
        first_seen = list(dict.fromkeys(versions))  # duplicates allowed, reordering not
        assert first_seen == sorted(first_seen), f"{stream_id} out of order: {versions}"
    expected: dict[str, set[int]] = {}
    for stream_id, version in Event.objects.filter(stream_id__startswith="cart-").values_list("stream_id", "version"):
        expected.setdefault(stream_id, set()).add(version)
    assert {k: set(v) for k, v in seen.items()} == expected


def test_every_appended_event_reaches_its_topic_in_per_key_order_with_headers(catalog: None, kafka: Broker) -> None:
    shop(3)
    relay_everything()
    messages = read_topic(config.topic("cart"))
    assert len(messages) == Event.objects.count()
    headers = dict(messages[0].headers())
    assert set(headers) == {"event_id", "type", "schema_version", "contract_version"}
    assert {m.key().decode() for m in messages} == set(Event.objects.values_list("stream_id", flat=True))
    assert_every_event_in_kafka_in_per_key_order()


def test_stock_events_reach_the_stock_topic_keyed_by_their_stream(catalog: None, kafka: Broker) -> None:
    receive_stock("COF-001", 5, actor="test")
    context = Context(actor=Principal.parse("user:1"))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 2)
    place_order(context, cart_id, None)
    relay_everything()
    # StockReceived, StockReserved, ReservationConfirmed: the stock stream's three versions, in order.
    assert events_by_key(config.topic("stock")) == {"stock-COF-001": [1, 2, 3]}
    assert_every_event_in_kafka_in_per_key_order()


def start_relay_process() -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "KAFKA_BOOTSTRAP_SERVERS": settings.KAFKA_BOOTSTRAP_SERVERS,
        "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX,
        "CONSUMER_BATCH_SIZE": "20",
        "RELAY_BATCH_SIZE": "20",
        "CONSUMER_POLL_SECONDS": "0.05",
    }
    command = [sys.executable, "manage.py", "run_relay"]
    return subprocess.Popen(
        command, cwd=Path(settings.BASE_DIR), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def wait_for(condition, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_relay_killed_mid_stream_and_restarted_sends_every_event_at_least_once_in_order(
    catalog: None, kafka: Broker
) -> None:
    writer_done = threading.Event()

    def writer() -> None:
        try:
            shop(60, pause=0.05)
        finally:
            connection.close()
            writer_done.set()

    relay = start_relay_process()
    thread = threading.Thread(target=writer)
    thread.start()
    wait_for(lambda: relay_checkpoint() > 10)
    relay.send_signal(signal.SIGKILL)
    relay.wait()
    assert not writer_done.is_set(), "the kill should land mid-stream"
    relay = start_relay_process()
    try:
        thread.join()
        wait_for(lambda: relay_checkpoint() == store.head_position())
    finally:
        relay.send_signal(signal.SIGTERM)
        relay.wait(timeout=30)
    assert_every_event_in_kafka_in_per_key_order()


@pytest.mark.slow
def test_a_broker_outage_under_load_loses_nothing_and_the_relay_recovers_by_itself(
    catalog: None, kafka: Broker, settings
) -> None:
    settings.KAFKA_MESSAGE_TIMEOUT_MS = 2000
    with relay_running():
        shop(3)
        wait_for(lambda: relay_checkpoint() == store.head_position())
        kafka.freeze()  # the broker stops answering
        try:
            shop(5)
            time.sleep(4)  # longer than the message timeout: deliveries fail, the checkpoint must hold
            assert relay_checkpoint() < store.head_position()
            # It beats while it retries: its heartbeat says it fails, and why (GET /api/projections, ready).
            wait_for(lambda: relay_failing().startswith(("DeliveryIncompleteError: ", "KafkaException: ")))
        finally:
            kafka.thaw()
        wait_for(lambda: relay_checkpoint() == store.head_position())
        wait_for(lambda: relay_failing() == "")
    assert_every_event_in_kafka_in_per_key_order()


def other_sessions() -> set[int]:
    """The pids of the sessions on the test database besides this thread's and the one the
    appends announce on (shop)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND application_name NOT LIKE 'cartlog-announce %%'"
        )
        return {pid for (pid,) in cursor.fetchall()}


def test_a_stopped_relay_leaves_no_session_open(catalog: None, kafka: Broker) -> None:
    """A relay that stops closes its thread's session and its lease's, as a consumer does: a
    process that runs it in a thread (run_consumers, a test) keeps no idle session after it."""
    before = other_sessions()
    with relay_running():
        shop(1)
        wait_for(lambda: relay_checkpoint() == store.head_position())
        assert len(other_sessions() - before) >= 2  # its own session and its lease's
    wait_for(lambda: not other_sessions() - before, timeout=10)  # a closed session leaves the list soon after


def relay_failing() -> str:
    return Heartbeat.objects.filter(name="relay").values_list("failing", flat=True).first() or ""


@pytest.mark.slow
def test_the_relay_recovers_by_itself_when_its_database_sessions_are_cut_mid_stream(
    catalog: None, kafka: Broker, settings
) -> None:
    """Every session of the relay (its own, its lease's, its read-ahead thread's) is killed
    by the server three times while it sends: it reconnects by itself, and every event still
    reaches its topic, in order per cart. Batches of 2 keep the read-ahead thread busy."""
    settings.RELAY_BATCH_SIZE = 2
    with relay_running():
        shop(2)
        wait_for(lambda: relay_checkpoint() == store.head_position())
        cut, deadline = 0, time.monotonic() + 60
        while cut < 3:  # the relay's sessions, caught while it sends (between batches it may hold none)
            assert time.monotonic() < deadline, f"cut {cut} sessions of the relay in 60 s"
            shop(1)
            cut += terminate_backends("%")  # every session of the test database but this thread's
        wait_for(lambda: relay_checkpoint() == store.head_position())
    assert_every_event_in_kafka_in_per_key_order()
