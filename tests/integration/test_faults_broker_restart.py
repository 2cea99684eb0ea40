"""The broker killed and started again under a running relay (issue 11, item 8).

The test broker, Tansu, is built here with memory storage only (its `postgres://`
and `sqlite://` engines are not compiled in), so a restarted broker is an empty
one: it has lost every message the old one confirmed. That is the boundary of
what the relay can promise. Its checkpoint moves only over deliveries a broker
confirmed (relay/relay.py), so it never re-sends those: keeping them is the
broker's durability (replication, `acks=all`), not the relay's. What it does
promise, and this test proves: every event appended while the broker was down,
and every event appended after it came back, reaches the new broker, in
per-key order, without restarting the relay (it recreates its topics and a
fresh producer by itself). A real Kafka cluster that keeps its log across a
restart loses nothing at all; the freeze test in test_kafka_relay.py shows
the relay's side of that.
"""

import threading
import time

import pytest
from django.db import connection

from eventlog import store
from eventlog.models import Event
from relay import config
from tests.fault_helpers import report, wait_for
from tests.integration.test_kafka_relay import shop
from tests.kafka_broker import Broker
from tests.kafka_helpers import events_by_key, relay_checkpoint

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _message_timeout(settings) -> None:  # type: ignore[no-untyped-def]
    # Deliveries sent while the broker is away fail within 2 s: the relay sends them again once it is back.
    settings.KAFKA_MESSAGE_TIMEOUT_MS = 2000


def versions_after(position: int) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    rows = Event.objects.filter(stream_id__startswith="cart-", position__gt=position)
    for stream_id, version in rows.values_list("stream_id", "version"):
        found.setdefault(stream_id, set()).add(version)
    return found


def test_a_restarted_empty_broker_gets_every_event_appended_during_and_after_the_outage(
    catalog: None, own_broker: Broker
) -> None:
    from relay.relay import run_forever

    def relay_until_stopped() -> None:
        try:
            run_forever(stop)
        finally:
            connection.close()  # the thread's own session, or the test database cannot be dropped

    stop = threading.Event()
    relay = threading.Thread(target=relay_until_stopped)
    relay.start()
    try:
        shop(2)
        wait_for(lambda: relay_checkpoint() == store.head_position(), what="the relay before the restart")
        confirmed_by_the_old_broker = store.head_position()
        own_broker.stop()  # kill -9: the broker and everything it held are gone
        shop(3)  # appended during the outage
        time.sleep(3)  # longer than the message timeout: the deliveries fail, the checkpoint holds
        assert relay_checkpoint() == confirmed_by_the_old_broker
        own_broker.start()  # same address, empty
        back = time.monotonic()
        shop(2)  # appended after the restart
        wait_for(lambda: relay_checkpoint() == store.head_position(), 90, "the relay after the restart")
        took = time.monotonic() - back
        report(f"broker killed, restarted empty under the relay: every event sent {took:.2f}s after the restart")
        assert relay.is_alive()
    finally:
        stop.set()
        relay.join(timeout=30)
    seen = events_by_key(config.topic("cart"))
    for stream_id, versions in seen.items():
        first_seen = list(dict.fromkeys(versions))  # repeats allowed (at least once), reordering not
        assert first_seen == sorted(first_seen), f"{stream_id} out of order: {versions}"
    assert {k: set(v) for k, v in seen.items()} == versions_after(confirmed_by_the_old_broker)
