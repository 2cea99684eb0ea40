"""The relay's lease holds (issue 11, item 2): two `run_relay` processes, the holder's lease session cut again and
again; every event reaches its topic, and no position is confirmed (checkpoint moved) twice or by two holders."""

import time
from pathlib import Path

import pytest
from django.conf import settings

from eventlog import store
from tests.fault_helpers import (
    assert_no_batch_twice,
    committed_ranges,
    lease_holder_pid,
    report,
    start_manage,
    stop,
    terminate_backends,
    wait_for,
)
from tests.integration.test_faults_consumers import Writer
from tests.integration.test_kafka_relay import assert_every_event_in_kafka_in_per_key_order
from tests.kafka_broker import Broker
from tests.kafka_helpers import relay_checkpoint

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_two_relays_with_the_holders_lease_cut_send_every_event_and_confirm_each_once(
    seeded_catalog: None, kafka: Broker, tmp_path: Path
) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX}
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    processes = [start_manage(["run_relay"], path, path.stem, **env) for path in logs]
    holders: set[int] = set()
    writer = Writer(carts=150)
    try:
        wait_for(lambda: lease_holder_pid("consumer:relay") is not None, what="a relay holding the lease")
        writer.start()
        deadline = time.monotonic() + 120
        both = {p.pid for p in processes}

        def both_sent() -> bool:
            return {file for *_, file in committed_ranges(logs, "relay")} == {"a.log", "b.log"}

        # Cut while the writes go on; the writer keeps going until the lease has changed hands
        # and each process, holding it, has sent something.
        while time.monotonic() < deadline and (writer.needs_more() or holders != both or not both_sent()):
            time.sleep(0.7)
            holder = lease_holder_pid("consumer:relay")
            if holder is not None:
                holders.add(holder)
                terminate_backends(f"cartlog-lease consumer:relay pid={holder}")
        writer.finish()
        took = wait_for(lambda: relay_checkpoint() == store.head_position(), timeout=90, what="the relay to catch up")
        report(f"relay, two processes, lease session cut {len(holders)}+ times: caught up {took:.2f}s after the writes")
        assert all(p.poll() is None for p in processes), "a run_relay exited"
    finally:
        writer.stop.set()  # a failed test must not leave it writing
        for process in processes:
            stop(process)
    assert holders == {p.pid for p in processes}, "the lease should have changed hands"
    ranges = committed_ranges(logs, "relay")
    assert {file for *_, file in ranges} == {"a.log", "b.log"}
    assert_no_batch_twice(ranges)
    assert_every_event_in_kafka_in_per_key_order()
