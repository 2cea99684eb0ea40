"""Prometheus metrics (the official prometheus_client) of this process, served at /metrics.

Counted in the process as commands run: cart commands by type and outcome
(accepted, replayed, refused with the DomainError class as `reason`, error) and
their latency. Read from the database at each scrape (ops/collector.py): every
consumer's position, lag and heartbeat, the relay's backlog, claim decisions.

Under gunicorn, prometheus_client runs in multiprocess mode (PROMETHEUS_MULTIPROC_DIR,
set by gunicorn.conf.py): every worker writes its counts to files in that folder,
and `scraped()` sums them, so any worker's /metrics shows the whole server's.
"""

import os
import time
from dataclasses import dataclass, fields
from functools import cache

from prometheus_client import CollectorRegistry, Counter, Histogram, multiprocess

from carts import handler
from carts.commands import CartCommand
from carts.handler import CommandHandler, Context, Outcome
from kernel.errors import DomainError

from .collector import LogCollector

REGISTRY = CollectorRegistry()
COMMANDS = Counter(
    "cartlog_commands",
    "Cart commands handled, by type and outcome; `reason` names the refusal (a DomainError class).",
    ["command", "outcome", "reason"],
    registry=REGISTRY,
)
COMMAND_SECONDS = Histogram(
    "cartlog_command_duration_seconds",
    "Time to handle a cart command, retries included.",
    ["command"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY,
)
REGISTRY.register(LogCollector())


def scraped() -> CollectorRegistry:
    """What /metrics shows: this process's registry, or under gunicorn every worker's counts summed."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    every_worker = CollectorRegistry()
    multiprocess.MultiProcessCollector(every_worker)
    every_worker.register(LogCollector())  # read from the database: the same in every process
    return every_worker


@dataclass(frozen=True, kw_only=True)
class MeteredCommandHandler(CommandHandler):
    """The same handler, counting and timing each command."""

    def handle(self, command: CartCommand, context: Context) -> Outcome:
        name, began = type(command).__name__, time.perf_counter()
        outcome, reason = "error", ""
        try:
            result = super().handle(command, context)
            outcome = "replayed" if result.replayed else "accepted"
            return result
        except DomainError as refusal:
            outcome, reason = "refused", type(refusal).__name__
            raise
        finally:
            _counted(name, outcome, reason).inc()
            _timed(name).observe(time.perf_counter() - began)


# A metric's child per label values, looked up once: `labels()` costs a lock and a few
# dict lookups per call, and a command is counted and timed every time.
@cache
def _counted(command: str, outcome: str, reason: str) -> Counter:
    return COMMANDS.labels(command=command, outcome=outcome, reason=reason)


@cache
def _timed(command: str) -> Histogram:
    return COMMAND_SECONDS.labels(command=command)


def meter_installed_handler() -> None:
    current = handler.installed()
    if not isinstance(current, MeteredCommandHandler):
        handler.install(MeteredCommandHandler(**{f.name: getattr(current, f.name) for f in fields(current)}))
