"""The relay keeps batches in flight while it reads the next (relay/relay.py), and its checkpoint
still moves only over what the broker confirmed, batch by batch in read order, never past a failure."""

import pytest
from confluent_kafka import Producer

from eventlog import store
from eventlog.models import Event
from relay import config
from relay.relay import IN_FLIGHT, DeliveryIncompleteError, Relay
from tests.integration.test_kafka_relay import assert_every_event_in_kafka_in_per_key_order, shop
from tests.kafka_broker import Broker
from tests.kafka_helpers import relay_checkpoint
from tests.log_helpers import wait_until_readable

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def positions() -> list[int]:
    return list(Event.objects.order_by("position").values_list("position", flat=True))


def in_flight(relay: Relay) -> list[int]:
    return [position for batch in relay.in_flight for position in batch.positions]


def test_batches_in_flight_move_the_checkpoint_only_once_settled_oldest_first(catalog: None, kafka: Broker) -> None:
    shop(3)  # 15 events: 8 batches of 2
    wait_until_readable()
    logged = positions()
    relay = Relay(batch_size=2)

    for _ in range(IN_FLIGHT):
        assert relay.relay_batch() == 2
    assert relay_checkpoint() == 0, "produced, not settled"
    assert in_flight(relay) == logged[: 2 * IN_FLIGHT]

    relay.relay_batch()  # one batch more than the window: the oldest settles
    assert relay_checkpoint() == logged[1]
    assert in_flight(relay) == logged[2 : 2 * IN_FLIGHT + 2]

    while relay.relay_batch():
        pass
    assert relay_checkpoint() == store.head_position() == logged[-1]
    assert not relay.in_flight
    relay.close()
    assert_every_event_in_kafka_in_per_key_order()


def test_a_batch_the_broker_never_confirmed_stops_the_checkpoint_and_everything_after_it_is_sent_again(
    catalog: None, kafka: Broker
) -> None:
    shop(2)  # 10 events: 3 batches of 4
    wait_until_readable()
    relay = Relay(batch_size=4)
    # Nothing listens on port 1: every message fails after its timeout.
    relay.producer = Producer({**config.producer(), "bootstrap.servers": "127.0.0.1:1", "message.timeout.ms": 500})
    with pytest.raises(DeliveryIncompleteError):
        while True:
            relay.relay_batch()  # produces all three; then, with nothing new, settles the first
    assert relay_checkpoint() == 0
    assert not relay.in_flight, "the later batches are dropped too, to be read again"

    relay.producer = Producer(config.producer())  # what the relay's recovery does
    while relay.relay_batch():
        pass
    assert relay_checkpoint() == store.head_position()
    relay.close()
    assert_every_event_in_kafka_in_per_key_order()
