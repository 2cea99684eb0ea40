"""Every consumer `run_consumers` runs, and the transport it reads from.

Each area adds the dotted path of a factory (a function returning consumers)
to FACTORIES with one line: async projections, the claim validator, the
archiver. The Kafka relay is not a consumer of this kind (it reads the table
and produces to Kafka); `run_consumers` starts it beside them when Kafka is set.
"""

from collections.abc import Callable
from importlib import import_module

from django.conf import settings

from projections import registry as projections

from .base import Consumer, ProjectionConsumer
from .transports import TableTransport, Transport

FACTORIES: list[str] = [
    "consumers.registry.projection_consumers",
    "analytics.archive_consumer.consumers",
    "claims.validator.consumers",
    "accounts.account_creator.consumers",
    "relay.cart_state.consumers",
]


def projection_consumers() -> list[Consumer]:
    return [ProjectionConsumer(projection) for projection in projections.asynchronous()]


def all_consumers() -> list[Consumer]:
    consumers: list[Consumer] = []
    for path in FACTORIES:
        module_name, _, attribute = path.rpartition(".")
        factory: Callable[[], list[Consumer]] = getattr(import_module(module_name), attribute)
        consumers.extend(factory())
    return consumers


def default_transport() -> str:
    return "kafka" if settings.KAFKA_BOOTSTRAP_SERVERS else "table"


def transport_factory(kind: str) -> Callable[[], Transport]:
    if kind == "table":
        return TableTransport
    if kind == "kafka":
        module = import_module("consumers.kafka_transport")
        factory: Callable[[], Transport] = module.KafkaTransport
        return factory
    raise ValueError(f"unknown transport {kind!r} (table or kafka)")
