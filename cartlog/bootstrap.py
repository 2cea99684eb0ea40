"""Wiring in one place: what each module registers, done once when Django starts."""

from eventlog import registry


def register_event_types() -> None:
    from carts.events import event_types as cart_event_types
    from claims.events import event_types as claim_event_types

    for event_type in [*cart_event_types(), *claim_event_types()]:
        registry.register(event_type)
