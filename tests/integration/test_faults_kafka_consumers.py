"""`run_consumers` on the Kafka transport outlives a broker outage by itself, and loses nothing.

The relay's outage is proven elsewhere (tests/integration/test_kafka_relay.py); this is the
consumer's side: a process reading its group's partitions while the broker stops answering
(SIGSTOP: its connections stay open, nothing is answered) for longer than the group's session
timeout, with orders placed meanwhile. When the broker answers again the consumer rejoins by
itself and its view equals a rebuild from the log: each order counted once.
"""

import time
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from consumers.models import Heartbeat
from eventlog import store
from projections import product_activity
from projections.models import ProductActivity
from rebuilds import service
from relay.kafka_transport import covered
from tests.fault_helpers import start_manage, stop, wait_for
from tests.integration.test_faults_consumers import place_an_order
from tests.kafka_broker import Broker

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_kafka_consumer_rejoins_after_a_broker_outage_and_counts_each_order_once(
    catalog: None, kafka: Broker, tmp_path: Path
) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": django_settings.KAFKA_TOPIC_PREFIX}
    log = tmp_path / "process.log"
    relay = start_manage(["run_relay"], log, "relay", **env)
    args = ["run_consumers", "--only", "product_activity", "--transport", "kafka"]
    consumer = start_manage(args, log, "kafka", **env)
    try:
        wait_for(lambda: Heartbeat.objects.filter(name="product_activity").exists(), what="the consumer running")
        place_an_order()
        wait_for(lambda: covered(product_activity.NAME) >= store.head_position(), what="the first order", timeout=60)
        kafka.freeze()
        try:
            for _ in range(3):
                place_an_order()  # the shop takes orders: commands never touch Kafka
            time.sleep(8)  # longer than the group's session timeout (6 s)
        finally:
            kafka.thaw()
        wait_for(lambda: covered(product_activity.NAME) >= store.head_position(), what="caught up", timeout=90)
        assert consumer.poll() is None and relay.poll() is None  # recovered by themselves, still running
        row = ProductActivity.objects.get(sku="COF-001")
        assert (row.times_added, row.times_bought, row.units_sold, row.revenue) == (4, 4, 4, Decimal("50.00"))
        assert service.rebuild(product_activity.NAME, verify=True).differences == []
    finally:
        codes = stop(consumer), stop(relay)
    assert codes == (0, 0)
