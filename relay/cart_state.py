"""The latest state of every cart, on a compacted topic keyed by cart id.

A new service bootstraps from this topic instead of replaying the whole log:
compaction keeps the newest record per key. The state published is the fold
of the cart's stream up to the newest event in the batch (what `?at_version=`
shows), so it is deterministic and never older than what was published before.
"""

from collections.abc import Sequence

from confluent_kafka import KafkaError, Message, Producer
from django.conf import settings

from carts import streams
from carts.handler import load
from catalog.queries import product_names
from eventlog.records import RecordedEvent

from . import config, contract

NAME = "cart_state_publisher"


class PublishError(Exception):
    """The broker did not confirm; the batch's transaction rolls back and is retried."""


class CartStatePublisher:
    name = NAME
    categories = ("cart",)

    def __init__(self) -> None:
        self.producer = Producer(config.producer())

    def handle(self, events: Sequence[RecordedEvent]) -> None:
        newest: dict[str, int] = {}
        for event in events:
            newest[streams.cart_id(event.stream_id)] = event.version
        failures: list[str] = []

        def on_delivery(error: KafkaError | None, message: Message) -> None:
            if error is not None:
                failures.append(str(error))

        for cart_id, version in newest.items():
            state = load(cart_id, version)
            value = contract.cart_state(state, product_names([line.sku for line in state.lines]))
            self.producer.produce(config.topic(config.CART_STATE), key=cart_id, value=value, on_delivery=on_delivery)
        if self.producer.flush(30.0) > 0 or failures:
            raise PublishError(f"cart state not confirmed: {failures[:3]}")


def consumers() -> list[CartStatePublisher]:
    return [CartStatePublisher()] if settings.KAFKA_BOOTSTRAP_SERVERS else []
