"""Metrics read from the database at each scrape: consumers, the relay's backlog, claim decisions, and how
fresh the analytics read tables are."""

import logging
from collections.abc import Iterator

from django.db import Error as DatabaseError
from django.db.models import Count
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from analytics import queries as analytics
from claims.events import ClaimAccepted, ClaimRejected
from consumers import status
from eventlog import horizon
from eventlog.models import Event
from projections import registry as projections

log = logging.getLogger(__name__)

RELAY = "relay"


class LogCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        up = GaugeMetricFamily("cartlog_database_up", "1 when the metrics below could be read from the database.")
        try:
            families = list(self._families())
        except DatabaseError:
            log.warning("metrics: the database cannot be read", exc_info=True)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _families(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        rows = status.overview([p.NAME for p in projections.inline()], [p.NAME for p in projections.asynchronous()])
        labels = ["consumer", "kind", "transport"]
        position = GaugeMetricFamily("cartlog_consumer_position", "Last log position applied.", labels=labels)
        lag_events = GaugeMetricFamily(
            "cartlog_consumer_lag_events", "Events of the categories it reads not yet applied.", labels=labels
        )
        lag_seconds = GaugeMetricFamily(
            "cartlog_consumer_lag_seconds", "How long the oldest unapplied event has waited.", labels=labels
        )
        running = GaugeMetricFamily("cartlog_consumer_up", "1 when its heartbeat is fresh.", labels=labels)
        failing = GaugeMetricFamily(
            "cartlog_consumer_failing", "1 while its batches fail and are retried.", labels=labels
        )
        head = GaugeMetricFamily("cartlog_log_head_position", "The last committed log position.")
        backlog = GaugeMetricFamily("cartlog_relay_backlog_events", "Committed events the relay has not sent.")
        for row in rows:
            key = [row["name"], row["kind"], row["transport"]]
            position.add_metric(key, row["checkpoint"])
            lag_events.add_metric(key, row["lag_events"])
            lag_seconds.add_metric(key, row["lag_seconds"])
            running.add_metric(key, 1 if row["running"] else 0)
            failing.add_metric(key, 1 if row["failing"] else 0)
            if row["name"] == RELAY:
                backlog.add_metric([], row["lag_events"])
        head.add_metric([], rows[0]["head"] if rows else 0)
        yield from (position, lag_events, lag_seconds, running, failing, head, backlog)
        yield claim_decisions()
        yield from analytics_freshness()
        yield held_back()


def held_back() -> GaugeMetricFamily:
    """How long the log's readers have waited for a transaction elsewhere on the server (eventlog/horizon.py):
    alert on it staying up; views, the relay and sign-ups stand still meanwhile."""
    held = horizon.held_back()
    return GaugeMetricFamily(
        "cartlog_log_held_back_seconds",
        "How long the newest event has waited for an older transaction of the PostgreSQL server (0: readable).",
        value=held.seconds if held else 0,
    )


def claim_decisions() -> CounterMetricFamily:
    """Sign-up and coupon claims decided by the validator, from the log (so every process agrees)."""
    decisions = {ClaimAccepted.TYPE: "accepted", ClaimRejected.TYPE: "rejected"}
    counts = dict(Event.objects.filter(type__in=decisions).values_list("type").annotate(n=Count("position")).order_by())
    family = CounterMetricFamily("cartlog_claim_decisions", "Claims decided by the validator.", labels=["decision"])
    for event_type, decision in decisions.items():
        family.add_metric([decision], counts.get(event_type, 0))
    return family


def analytics_freshness() -> Iterator[GaugeMetricFamily]:
    """When the analytics pipeline last loaded its read tables, and through which log position: the one sign
    that scheduled runs still complete (beat skips those queued while another runs, docs/analytics.md)."""
    summary = analytics.summary()
    loaded = summary["computed_at"]
    yield GaugeMetricFamily(
        "cartlog_analytics_loaded_timestamp_seconds",
        "When the analytics pipeline last loaded its read tables (Unix time; 0 before the first run).",
        value=loaded.timestamp() if loaded else 0,
    )
    yield GaugeMetricFamily(
        "cartlog_analytics_covers_position",
        "The last log position the analytics read tables include (0 before the first run).",
        value=summary["covers_position"],
    )
