"""A Kafka-transport consumer says it is failing while it cannot reach the broker, and stops promptly.

Found by an operator test: with the broker frozen or stopped under `run_consumers`, its consumers
showed lag only, never `failing` (nothing to read, no exception reached the runner); only the relay's
row and ready's `kafka` check named the cause. And `run_consumers` at an address where nothing listens
sat out the whole metadata wait (15 s) on SIGTERM before it exited.
"""

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from consumers.models import Heartbeat
from eventlog import store
from ops import health
from projections import product_activity
from projections.models import ProductActivity
from rebuilds import service
from relay.kafka_transport import covered
from tests.fault_helpers import start_manage, stop, wait_for
from tests.integration.test_faults_consumers import place_an_order
from tests.integration.test_operator_failing import failing, said_in_one_line
from tests.kafka_broker import Broker, free_port

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NAME = product_activity.NAME


def away_and_back(broker: Broker, how: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """Frozen (SIGSTOP: connections stay open, nothing answers) or stopped (kill -9, then started again
    empty on the same address: Tansu keeps its log in memory only)."""
    if how == "frozen":
        return broker.freeze, broker.thaw
    return broker.stop, broker.start


@pytest.mark.kafka
@pytest.mark.parametrize("how", ["frozen", "stopped"])
def test_a_kafka_consumer_says_failing_while_the_broker_is_away_and_clears_when_it_is_back(
    catalog: None, own_broker: Broker, tmp_path: Path, how: str
) -> None:
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": own_broker.bootstrap, "KAFKA_TOPIC_PREFIX": django_settings.KAFKA_TOPIC_PREFIX,
        "KAFKA_MESSAGE_TIMEOUT_MS": "2000",  # the relay gives up on a delivery soon, and re-sends once it is back
    }  # fmt: skip
    log = tmp_path / "process.log"
    relay = start_manage(["run_relay"], log, "relay", **env)
    consumer = start_manage(["run_consumers", "--only", NAME, "--transport", "kafka"], log, "kafka", **env)
    named = f"BrokerUnavailableError: Kafka at {own_broker.bootstrap} (KAFKA_BOOTSTRAP_SERVERS): "
    away, back = away_and_back(own_broker, how)
    try:
        wait_for(lambda: Heartbeat.objects.filter(name=NAME).exists(), what="the consumer running")
        place_an_order()
        wait_for(lambda: covered(NAME) >= store.head_position(), what="the first order", timeout=60)
        assert failing(NAME) == ""
        away()
        try:
            place_an_order()  # the shop takes orders: commands never touch Kafka
            wait_for(lambda: failing(NAME).startswith(named), what="the consumer saying it fails", timeout=60)
            assert "check that the broker is up" in failing(NAME)
            assert f"{NAME} failing: BrokerUnavailableError" in (health.consumers() or "")
            place_an_order()
        finally:
            back()
        wait_for(lambda: failing(NAME) == "", what="'failing' cleared once the broker is back", timeout=90)
        assert Heartbeat.objects.get(name=NAME).failing_since is None
        place_an_order()
        wait_for(lambda: covered(NAME) >= store.head_position(), what="every event applied", timeout=90)
        assert consumer.poll() is None and relay.poll() is None  # recovered by themselves, still running
        row = ProductActivity.objects.get(sku="COF-001")
        assert (row.times_added, row.times_bought, row.units_sold, row.revenue) == (4, 4, 4, Decimal("50.00"))
        assert service.rebuild(NAME, verify=True).differences == []
    finally:
        codes = stop(consumer), stop(relay)
    assert codes == (0, 0)


def test_run_consumers_at_an_address_where_nothing_listens_stops_at_once_on_sigterm(
    catalog: None, tmp_path: Path
) -> None:
    """Every consumer and the relay wait for the broker's metadata (up to 15 s); SIGTERM ends that wait.

    The process is stopped as soon as each of them has beaten, i.e. is inside its first wait: the old
    code sat out the rest of those 15 s; the bound below (8 s) leaves several times what it takes now."""
    nobody = f"127.0.0.1:{free_port()}"
    log_file = tmp_path / "consumers.log"
    env = {"KAFKA_BOOTSTRAP_SERVERS": nobody, "LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}
    process = start_manage(["run_consumers"], log_file, "nobody", **env)
    try:
        names = [NAME, "relay"]
        wait_for(lambda: Heartbeat.objects.filter(name__in=names).count() == 2, what="the consumers in their wait")
        process.terminate()
        assert process.wait(timeout=8) == 0
    finally:
        stop(process)
    # Stopped mid-wait, each still says why it could not start, in one line naming the setting.
    named = f"Kafka at {nobody} (KAFKA_BOOTSTRAP_SERVERS): "
    assert said_in_one_line(log_file, "consumers.runner", f"consumer {NAME}: {named}")
    assert said_in_one_line(log_file, "relay.relay", f"relay: broker trouble: KafkaException: {named}")
