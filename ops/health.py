"""Readiness checks: the database, the Kafka broker when one is configured, every consumer's heartbeat
and whether its batches fail, and whether a transaction elsewhere on the server holds the log's readers back.

Each check returns None when fine, else the problem in a sentence. Only the database decides
whether a web process is ready (`SERVES`): the shop takes orders and answers its cart pages
without the broker (no request sends to it) and without the consumers (their views lag); a
restart of `run_consumers` must not take every web instance out of a load balancer. The other
two are reported beside it, for the operator.

A failing consumer's error is the first line of whatever its batch raised: text from event
handling (a claim's stream id holds the username; a bug's message may quote an event's value),
file paths, broker addresses. /health/ready answers anyone who reaches it, so there it names the
consumer and the error's class, and the whole line only to a staff session (`detail`); GET
/api/projections (staff) and the log always have it (docs/security.md).
"""

from collections.abc import Callable

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient
from django.conf import settings
from django.db import Error as DatabaseError
from django.db import connection

from consumers import heartbeat, registry
from eventlog import horizon
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


def _always() -> bool:
    return True


def consumers(detail: Callable[[], bool] = _always) -> str | None:
    """Every registered consumer (and the relay, on Kafka) beat within CONSUMER_STALE_AFTER_SECONDS, and
    none fails; `detail()` (asked only when one fails) says whether to give its error or only its class."""
    names = [consumer.name for consumer in registry.all_consumers()]
    if registry.default_transport() == "kafka":
        names += registry.processes()
    try:
        silent = heartbeat.silent(names)
        failing = heartbeat.failures(names)
        whole = bool(failing) and detail()  # a session's user is read from the database too
    except DatabaseError as error:
        return f"heartbeats: {error}"
    stale = settings.CONSUMER_STALE_AFTER_SECONDS
    problems = [f"no heartbeat in the last {stale:.0f}s from: {', '.join(silent)}"] if silent else []
    problems += [f"{name} failing: {said(error, whole)}" for name, (error, _) in sorted(failing.items())]
    return "; ".join(problems) or None


def said(error: str, whole: bool) -> str:
    """The error as recorded ('<Class>: <first line>', consumers/heartbeat.py: Failures), or its
    class alone, which holds nothing of an event or of the machine."""
    return error if whole else error.split(":", 1)[0]


def log(detail: Callable[[], bool] = _always) -> str | None:
    """The log's newest event waited LOG_HELD_BACK_AFTER_SECONDS or more for a transaction of the
    server to end (eventlog/horizon.py); `detail()` says whether to name that transaction's session."""
    try:
        held = horizon.held_back()
        if held is None or held.seconds < settings.LOG_HELD_BACK_AFTER_SECONDS:
            return None
        return "readers held back: " + horizon.describe(held, detail())
    except DatabaseError as error:
        return f"log: {error}"


CHECKS = {"database": database, "kafka": kafka, "consumers": consumers, "log": log}
SERVES = ("database",)  # the checks a web process cannot serve without


def readiness(detail: Callable[[], bool] = _always) -> dict[str, str | None]:
    """Each check's problem (None: fine); the consumers are not asked when the database is away."""
    results: dict[str, str | None] = {"database": database()}
    results["kafka"] = kafka()
    results["consumers"] = "database unavailable" if results["database"] else consumers(detail)
    results["log"] = "database unavailable" if results["database"] else log(detail)
    return results
