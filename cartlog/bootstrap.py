"""Wiring in one place, done once when Django starts (`CartlogConfig.ready`).

The composition root: the only module that knows every package. It registers
the event types each domain defines and hands the consumers of the higher
layers to `consumers.registry`. Nothing here runs at import time.
"""

from eventlog import registry


def start() -> None:
    register_event_types()
    install_consumers()


def register_event_types() -> None:
    from carts.events import event_types as cart_event_types
    from claims.events import event_types as claim_event_types

    for event_type in [*cart_event_types(), *claim_event_types()]:
        registry.register(event_type)


def install_consumers() -> None:
    from accounts import account_creator
    from analytics import archive_consumer
    from claims import validator
    from consumers import registry as consumers
    from relay import cart_state
    from relay.kafka_transport import KafkaTransport

    consumers.install(
        [
            consumers.projection_consumers,
            archive_consumer.consumers,
            validator.consumers,
            account_creator.consumers,
            cart_state.consumers,
        ],
        transports={"kafka": KafkaTransport},
        processes=["relay"],  # not a consumer, but its checkpoint is shown beside theirs
    )
