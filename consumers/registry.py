"""Which consumers this process runs, and the transports they can read from.

The composition root (`cartlog/bootstrap.py`) installs both when Django
starts. This module imports none of the packages that define consumers (they
sit in higher layers: claims, accounts, analytics, relay), so the layers stay
one-way: they are handed in, not looked up.
"""

from collections.abc import Callable, Mapping, Sequence

from django.conf import settings

from projections import registry as projections

from .base import Consumer, ProjectionConsumer
from .transports import TableTransport, Transport

ConsumerFactory = Callable[[], Sequence[Consumer]]
TransportFactory = Callable[[], Transport]
# How far a named consumer surely reaches on a transport, where the lowest checkpoint is not it (Kafka).
Coverage = Callable[[str], int]

_factories: list[ConsumerFactory] = []
_transports: dict[str, TransportFactory] = {"table": TableTransport}
_coverage: dict[str, Coverage] = {}
# Processes that are not consumers but keep a checkpoint the status shows (the relay).
_processes: list[str] = []


def install(
    factories: Sequence[ConsumerFactory],
    transports: Mapping[str, TransportFactory],
    processes: Sequence[str] = (),
    coverage: Mapping[str, Coverage] | None = None,
) -> None:
    _factories[:] = factories
    _transports.update(transports)
    _processes[:] = processes
    _coverage.update(coverage or {})


def all_consumers() -> list[Consumer]:
    return [consumer for factory in _factories for consumer in factory()]


def find(name: str) -> Consumer | None:
    return next((consumer for consumer in all_consumers() if consumer.name == name), None)


def coverage(transport: str) -> Coverage | None:
    return _coverage.get(transport)


def processes() -> list[str]:
    return list(_processes)


def default_transport() -> str:
    return "kafka" if settings.KAFKA_BOOTSTRAP_SERVERS else "table"


def transport_factory(kind: str) -> TransportFactory:
    try:
        return _transports[kind]
    except KeyError:
        raise ValueError(f"unknown transport {kind!r} ({' or '.join(sorted(_transports))})") from None


def projection_consumers() -> list[Consumer]:
    """Every async projection, run as a consumer."""
    return [ProjectionConsumer(projection) for projection in projections.asynchronous()]
