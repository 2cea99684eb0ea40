"""What an operator on call sees of a failing consumer or relay, with real processes.

Found by an operator restarting `run_consumers` after a wrong KAFKA_BOOTSTRAP_SERVERS: the new
process read every event, yet GET /api/projections, /health/ready and /metrics said every consumer
was failing, for as long as it ran. Only the process that wrote `failing` ever cleared it, and it
had exited; a process starts now believing its row may say so, and clears it on its first turn.
"""

from pathlib import Path

import pytest
from django.conf import settings

from consumers import heartbeat
from consumers.models import Heartbeat
from ops import health
from tests.fault_helpers import start_manage, stop, wait_for
from tests.kafka_broker import Broker

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def failing(name: str) -> str:
    return Heartbeat.objects.filter(name=name).values_list("failing", flat=True).first() or ""


def left_failing_by_a_process_gone(name: str, transport: str, error: str) -> None:
    heartbeat.beat(name, transport)
    heartbeat.failing(name, error)
    assert failing(name) == error


def test_a_consumer_restarted_after_a_failure_says_it_works_again(catalog: None, tmp_path: Path) -> None:
    left_failing_by_a_process_gone(
        "order_history", "kafka", 'KafkaException: KafkaError{code=_TRANSPORT,val=-195,str="Failed to get metadata"}'
    )
    assert "order_history failing: KafkaException" in (health.consumers() or "")
    process = start_manage(["run_consumers", "--only", "order_history"], tmp_path / "consumers.log", "restarted")
    try:
        wait_for(lambda: failing("order_history") == "", what="the restarted consumer clearing 'failing'")
        assert Heartbeat.objects.get(name="order_history").failing_since is None
        assert "order_history failing" not in (health.consumers() or "")
    finally:
        assert stop(process) == 0


@pytest.mark.kafka
def test_a_relay_restarted_after_a_failure_says_it_works_again(catalog: None, kafka: Broker, tmp_path: Path) -> None:
    left_failing_by_a_process_gone("relay", "kafka", "DeliveryIncompleteError: confirmed up to position 0 of 3")
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX}
    process = start_manage(["run_relay"], tmp_path / "relay.log", "restarted", **env)
    try:
        wait_for(lambda: failing("relay") == "", what="the restarted relay clearing 'failing'")
        assert Heartbeat.objects.get(name="relay").failing_since is None
    finally:
        assert stop(process) == 0
