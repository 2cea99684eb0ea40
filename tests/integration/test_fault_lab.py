"""Each fault lab switch, flipped by `manage.py lab` in this process, reaches a real `run_consumers` (or
`run_relay`) in another: its effect shows, and once it is flipped back the consumers catch up and every
invariant the lab checks holds (docs/fault-lab.md)."""

import time
from decimal import Decimal
from pathlib import Path
from subprocess import Popen

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from consumers import checkpoints, status
from consumers.faults import Fault, switches
from consumers.models import Heartbeat
from eventlog import store
from lab import invariants
from projections.models import OrderHistory, ProductActivity
from tests.fault_helpers import start_manage, stop, wait_for
from tests.integration.test_faults_consumers import caught_up, place_an_order
from tests.integration.test_kafka_relay import assert_every_event_in_kafka_in_per_key_order
from tests.kafka_broker import Broker
from tests.kafka_helpers import relay_checkpoint

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SETTLE = 0.5  # seconds for a batch already in hand when a switch flips to finish (the runner reads it per batch)
WATCH = 2.0  # seconds a stopped consumer is watched not moving


@pytest.fixture(autouse=True)
def lab_enabled(settings) -> None:
    settings.LAB_ENABLED = True


def started(tmp_path: Path, *args: str, running: str, **env: str) -> Popen[bytes]:
    """`manage.py ARGS` with the lab enabled, once `running` beats (its thread took its lease)."""
    process = start_manage(list(args), tmp_path / "process.log", "lab", CARTLOG_LAB="1", **env)
    wait_for(lambda: Heartbeat.objects.filter(name=running).exists(), what=f"{running} running")
    return process


def assert_invariants_hold() -> None:
    checks = invariants.check_all()
    assert all(check.ok for check in checks), checks


def activity(sku: str = "COF-001") -> tuple[int, int]:
    row = ProductActivity.objects.filter(sku=sku).first()
    return (row.times_added, row.times_bought) if row else (0, 0)


def test_a_paused_consumer_does_not_move_and_catches_up_when_switched_back(catalog: None, tmp_path: Path) -> None:
    process = started(tmp_path, "run_consumers", "--only", "order_history", running="order_history")
    try:
        first = place_an_order()
        wait_for(lambda: OrderHistory.objects.filter(order_id=first).exists(), what="a first order")
        call_command("lab", "on", "pause", "--consumer", "order_history")
        time.sleep(SETTLE)
        paused_at = checkpoints.read_position("order_history")
        orders = [place_an_order() for _ in range(3)]
        time.sleep(WATCH)
        assert checkpoints.read_position("order_history") == paused_at
        assert not OrderHistory.objects.filter(order_id__in=orders).exists()
        assert status.lag(paused_at, ("cart",))[0] == 9  # three orders of three events each
        assert_invariants_hold()  # behind is not wrong: the view equals a rebuild to its position
        call_command("lab", "off", "pause")
        wait_for(lambda: OrderHistory.objects.filter(order_id__in=orders).count() == 3, what="the orders")
        assert_invariants_hold()
    finally:
        code = stop(process)
    assert code == 0


def test_a_crashed_batch_rolls_back_comes_again_and_applies_once_when_switched_back(
    catalog: None, tmp_path: Path
) -> None:
    process = started(tmp_path, "run_consumers", "--only", "product_activity", running="product_activity")
    try:
        place_an_order()
        wait_for(lambda: caught_up(["product_activity"]), what="a first order counted")
        assert activity() == (1, 1)
        call_command("lab", "on", "crash", "--consumer", "product_activity")
        time.sleep(SETTLE)
        at = checkpoints.read_position("product_activity")
        place_an_order()
        place_an_order()
        wait_for(lambda: switches()[Fault.CRASH].fired >= 2, what="the batch crashing, coming again, crashing")
        assert "before the commit" in switches()[Fault.CRASH].note
        assert checkpoints.read_position("product_activity") == at and activity() == (1, 1)
        assert_invariants_hold()
        call_command("lab", "off", "crash")
        wait_for(lambda: caught_up(["product_activity"]), what="the crashed batch applied")
        assert activity() == (3, 3)  # each of the two orders counted once
        assert_invariants_hold()
    finally:
        code = stop(process)
    assert code == 0
    assert "LabCrashError" in (tmp_path / "process.log").read_text()


def test_a_batch_delivered_twice_changes_nothing(catalog: None, tmp_path: Path) -> None:
    process = started(tmp_path, "run_consumers", "--only", "product_activity", running="product_activity")
    try:
        # Paused while the order is placed, so that its events arrive as one batch, the one delivered twice.
        call_command("lab", "on", "pause", "--consumer", "product_activity")
        time.sleep(SETTLE)
        place_an_order()
        call_command("lab", "on", "duplicate", "--consumer", "product_activity")
        call_command("lab", "off", "pause")
        wait_for(lambda: caught_up(["product_activity"]), what="the order counted")
        wait_for(lambda: "twice" in switches()[Fault.DUPLICATE].note, what="the duplicate delivered")
        duplicate = switches()[Fault.DUPLICATE]
        assert (duplicate.on, duplicate.fired) == (False, 1)  # it fires once and turns itself off
        time.sleep(SETTLE)
        row = ProductActivity.objects.get(sku="COF-001")
        assert (row.times_added, row.times_bought, row.units_sold, row.revenue) == (1, 1, 1, Decimal("12.50"))
        assert_invariants_hold()
    finally:
        code = stop(process)
    assert code == 0
    assert "checkpoint of product_activity moved under its batch" in (tmp_path / "process.log").read_text()


def test_sign_ups_answer_202_while_the_validator_is_stopped_and_resolve_after(tmp_path: Path, settings) -> None:
    settings.CLAIM_WAIT_SECONDS = 0.2
    args = ["run_consumers", "--only", "claim_validator", "--only", "account_creator"]
    process = started(tmp_path, *args, running="claim_validator")
    client = APIClient()
    try:
        call_command("lab", "on", "validator")
        time.sleep(SETTLE)
        response = client.post("/api/accounts", {"username": "ada", "password": "a-long-passphrase"}, format="json")
        assert response.status_code == 202
        location = response["Location"]
        time.sleep(WATCH)
        assert client.get(location).json()["status"] == "pending"
        call_command("lab", "off", "validator")
        wait_for(lambda: client.get(location).json()["status"] == "accepted", what="the sign-up decided")
        wait_for(get_user_model().objects.filter(username="ada").exists, what="the account")
        assert_invariants_hold()
    finally:
        code = stop(process)
    assert code == 0


@pytest.mark.kafka
def test_a_stopped_relay_sends_nothing_new_and_everything_after_it_is_back(
    catalog: None, kafka: Broker, tmp_path: Path
) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": django_settings.KAFKA_TOPIC_PREFIX}
    place_an_order()
    process = started(tmp_path, "run_relay", running="relay", **env)
    try:
        wait_for(lambda: relay_checkpoint() == store.head_position(), what="the relay caught up")
        call_command("lab", "on", "relay")
        wait_for(lambda: "stopped by its switch" in (tmp_path / "process.log").read_text(), what="the relay stopped")
        stopped_at = relay_checkpoint()
        place_an_order()
        time.sleep(WATCH)
        assert relay_checkpoint() == stopped_at < store.head_position()
        call_command("lab", "off", "relay")
        wait_for(lambda: relay_checkpoint() == store.head_position(), what="the relay sending again")
        assert_every_event_in_kafka_in_per_key_order()
        assert_invariants_hold()
    finally:
        code = stop(process)
    assert code == 0
