"""Readiness checks: the database, the Kafka broker when one is configured, every consumer's heartbeat
and whether its batches fail.

Each check returns None when fine, else the problem in a sentence. Only the database decides
whether a web process is ready (`SERVES`): the shop takes orders and answers its cart pages
without the broker (no request sends to it) and without the consumers (their views lag); a
restart of `run_consumers` must not take every web instance out of a load balancer. The other
two are reported beside it, for the operator.
"""

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient
from django.conf import settings
from django.db import Error as DatabaseError
from django.db import connection

from consumers import heartbeat, registry
from relay import config

BROKER_TIMEOUT_SECONDS = 3.0


def database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        return f"database: {error}"
    return None


def kafka() -> str | None:
    if not settings.KAFKA_BOOTSTRAP_SERVERS:
        return None  # the table transport: no broker to wait for (Celery's broker is not checked here)
    try:
        AdminClient(config.common()).list_topics(timeout=BROKER_TIMEOUT_SECONDS)
    except KafkaException as error:
        return f"broker {settings.KAFKA_BOOTSTRAP_SERVERS}: {error}"
    return None


def consumers() -> str | None:
    """Every registered consumer (and the relay, on Kafka) beat within CONSUMER_STALE_AFTER_SECONDS."""
    names = [consumer.name for consumer in registry.all_consumers()]
    if registry.default_transport() == "kafka":
        names += registry.processes()
    try:
        silent = heartbeat.silent(names)
        failing = heartbeat.failures(names)
    except DatabaseError as error:
        return f"heartbeats: {error}"
    stale = settings.CONSUMER_STALE_AFTER_SECONDS
    problems = [f"no heartbeat in the last {stale:.0f}s from: {', '.join(silent)}"] if silent else []
    problems += [f"{name} failing: {error}" for name, (error, _) in sorted(failing.items())]
    return "; ".join(problems) or None


CHECKS = {"database": database, "kafka": kafka, "consumers": consumers}
SERVES = ("database",)  # the checks a web process cannot serve without


def readiness() -> dict[str, str | None]:
    """Each check's problem (None: fine); the consumers are not asked when the database is away."""
    results: dict[str, str | None] = {"database": database()}
    results["kafka"] = kafka()
    results["consumers"] = "database unavailable" if results["database"] else consumers()
    return results
