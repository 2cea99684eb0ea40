"""/metrics, /health/live and /health/ready (ops/): what an operator's Prometheus and load balancer see."""

from datetime import timedelta
from uuid import uuid4

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from carts import errors, services
from carts.handler import Context
from consumers import registry
from consumers.models import Heartbeat
from kernel.principal import Principal

pytestmark = pytest.mark.django_db
OWNER = Context(actor=Principal.parse("user:1"))


def sample(client: Client, name: str, **labels: str) -> float:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    for family in text_string_to_metric_families(response.content.decode()):
        for found in family.samples:
            if found.name == name and all(found.labels.get(k) == v for k, v in labels.items()):
                return float(found.value)
    return 0.0


def test_metrics_count_commands_by_type_and_outcome_and_refusals_by_reason(catalog: None) -> None:
    client = Client()
    accepted = {"command": "AddToCart", "outcome": "accepted"}
    refused = {"command": "UpdateCartQuantity", "outcome": "refused", "reason": "ItemNotInCartError"}
    before, refused_before = (
        sample(client, "cartlog_commands_total", **accepted),
        sample(client, "cartlog_commands_total", **refused),
    )
    cart = str(uuid4())
    services.start_cart(OWNER, cart)
    services.add_to_cart(OWNER, cart, "KIT-001", 1)
    with pytest.raises(errors.ItemNotInCartError):
        services.update_quantity(OWNER, cart, "COF-001", 3)
    assert sample(client, "cartlog_commands_total", **accepted) == before + 1
    assert sample(client, "cartlog_commands_total", **refused) == refused_before + 1
    assert sample(client, "cartlog_command_duration_seconds_count", command="AddToCart") >= 1
    assert sample(client, "cartlog_log_head_position") >= 2
    assert sample(client, "cartlog_database_up") == 1


def test_metrics_show_every_consumers_position_and_lag(catalog: None) -> None:
    client = Client()
    services.start_cart(OWNER, str(uuid4()))
    for consumer in registry.all_consumers():
        assert sample(client, "cartlog_consumer_lag_events", consumer=consumer.name) >= 0
    text = client.get("/metrics").content.decode()
    for name in ("cartlog_consumer_position", "cartlog_consumer_lag_seconds", "cartlog_claim_decisions_total"):
        assert name in text


def beat_all(age: timedelta) -> None:
    for consumer in registry.all_consumers():
        Heartbeat.objects.update_or_create(
            name=consumer.name, defaults={"transport": "table", "beat_at": timezone.now() - age, "pid": 1}
        )


def test_ready_stays_200_and_says_degraded_while_a_consumers_heartbeat_is_stale() -> None:
    """A restart of run_consumers (heartbeats stale for a while) took every web instance out of a load
    balancer (503), though the shop still takes orders: only the database decides readiness now."""
    client = Client()
    beat_all(timedelta(seconds=1))
    response = client.get("/health/ready")
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "kafka": "not used", "consumers": "ok", "log": "ok"},
    }

    stale = registry.all_consumers()[0].name
    Heartbeat.objects.filter(name=stale).update(beat_at=timezone.now() - timedelta(minutes=5))
    response = client.get("/health/ready")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert stale in response.json()["checks"]["consumers"]


def test_live_answers_without_asking_anything_else() -> None:
    response = Client().get("/health/live")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_metrics_say_when_the_analytics_tables_were_last_loaded_and_through_which_position() -> None:
    """With beat skipping runs queued behind a long one, an operator needs to see that runs still complete."""
    from datetime import UTC, datetime

    from analytics.pipeline import load

    def family(name: str) -> list[float]:
        text = Client().get("/metrics").content.decode()
        return [s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name]

    assert family("cartlog_analytics_loaded_timestamp_seconds") == [0.0]  # before the first run
    assert family("cartlog_analytics_covers_position") == [0.0]
    summary = {"carts_started": 3, "carts_with_items": 2, "carts_checked_out": 1, "conversion_rate": 1 / 3,
               "abandonment_rate": 0.5, "revenue": "12.50", "average_order_value": "12.50"}  # fmt: skip
    load({"summary": [summary]}, covers_position=42, computed_at=datetime(2026, 11, 28, 13, 0, tzinfo=UTC))
    assert family("cartlog_analytics_loaded_timestamp_seconds") == [1795870800.0]  # 2026-11-28 13:00 UTC
    assert family("cartlog_analytics_covers_position") == [42.0]
