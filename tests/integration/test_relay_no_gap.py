"""A link to the broker cut between two batches of different ages: no event is lost to a Kafka consumer.

A consumer on the Kafka transport drops any message at or below the highest position it applied
in that partition, as a repeat. That is right only if, in each partition, no event is first
delivered after a later one. The fault here is the one a producer's message timeout could turn
into exactly that: the link is cut (connections reset, new ones refused, unlike a paused broker
whose connections stay open), batch A times out while batch B, sent 3 s later, has not yet, and
the link comes back while the relay's thread is elsewhere. librdkafka's idempotent producer does
not deliver B past the failed A (it bumps its epoch after A's timeout, and B fails too), the relay
sends both again from its checkpoint, and the consumer's view equals a rebuild from the log.
"""

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from consumers.base import ProjectionConsumer
from eventlog import store
from eventlog.models import Event
from projections import order_history
from projections.models import OrderHistory
from rebuilds import service
from relay import config, kafka_transport
from relay.contract import from_message
from relay.kafka_transport import KafkaTransport
from relay.relay import Relay
from tests import services
from tests.integration.test_kafka_relay import shop
from tests.kafka_broker import Broker
from tests.kafka_helpers import drain_until, read_topic, relay_checkpoint
from tests.log_helpers import wait_until_readable
from tests.tcp_proxy import CuttableProxy

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def broker_behind_a_proxy(tmp_path: Path, settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[CuttableProxy]:  # type: ignore[no-untyped-def]
    """A broker of this test alone, reached (and advertised) only through a proxy the test can cut."""
    binary = services.tansu_binary()
    assert binary is not None
    proxy = CuttableProxy(target_port=0)
    broker = Broker(binary, tmp_path, advertised_port=proxy.port)
    proxy.target_port = broker.port
    broker.start()
    proxy.start()
    settings.KAFKA_BOOTSTRAP_SERVERS = f"127.0.0.1:{proxy.port}"
    settings.KAFKA_TOPIC_PREFIX = f"g{time.monotonic_ns()}"
    settings.KAFKA_TOPIC_PARTITIONS = 1  # every cart in one partition: any reordering shows
    settings.KAFKA_MESSAGE_TIMEOUT_MS = 4000
    # Reconnect at once when the link is back (librdkafka backs off up to 10 s by default).
    monkeypatch.setenv("KAFKA_RECONNECT_BACKOFF_MS", "50")
    monkeypatch.setenv("KAFKA_RECONNECT_BACKOFF_MAX_MS", "100")
    try:
        yield proxy
    finally:
        proxy.stop()
        broker.stop()


def shop_and_relay(relay: Relay) -> float:
    """One order, relayed once all of it is readable (tests/log_helpers.py: beside other work on the
    server, a batch read at once came empty or short, and a short one settled the batch before it
    early, failing at once for the cut link); when its batch was produced."""
    before = store.head_position()
    shop(1)
    wait_until_readable()
    assert relay.relay_batch() == store.head_position() - before
    return time.monotonic()


def test_a_link_cut_between_two_batches_loses_no_event_for_a_kafka_consumer(
    catalog: None, broker_behind_a_proxy: CuttableProxy
) -> None:
    proxy, relay = broker_behind_a_proxy, Relay()
    shop(1)  # the producer connected, its topics made, its first order relayed
    while relay.relay_batch() or relay_checkpoint() < store.head_position():
        pass

    proxy.cut()
    a_sent = shop_and_relay(relay)  # batch A: produced, its acks not awaited yet
    time.sleep(3.0)
    shop_and_relay(relay)  # batch B: 3 s younger than A
    time.sleep(max(0.0, a_sent + 5.2 - time.monotonic()))  # A is past the 4 s timeout, B is not
    proxy.restore()
    # The relay's own thread is elsewhere for a moment (its database, say) while the producer's
    # threads reconnect and send what they still hold.
    time.sleep(2.0)

    stop = threading.Event()

    def relay_until_stopped() -> None:
        try:
            relay.run(stop)  # settles A and B, recovering as it does in production
        finally:
            connection.close()

    running = threading.Thread(target=relay_until_stopped)
    running.start()
    try:
        deadline = time.monotonic() + 60
        while relay_checkpoint() < store.head_position():
            assert time.monotonic() < deadline, "the relay did not catch up"
            time.sleep(0.1)
    finally:
        stop.set()
        running.join(timeout=30)

    head = store.head_position()
    in_partition = [from_message(message.value()).position for message in read_topic(config.topic("cart"))]
    logged = list(
        Event.objects.filter(stream_id__startswith="cart-").order_by("position").values_list("position", flat=True)
    )
    assert len(logged) == 15  # 3 carts x 5 events
    assert list(dict.fromkeys(in_partition)) == logged  # each first seen in log order: none after a later one
    consumer, transport = ProjectionConsumer(order_history), KafkaTransport()
    try:
        drain_until(consumer, transport, lambda: kafka_transport.covered(order_history.NAME) >= head)
    finally:
        transport.close()
    assert OrderHistory.objects.count() == 3  # the three carts' orders, the one during the cut too
    assert service.rebuild(order_history.NAME, verify=True).differences == []
