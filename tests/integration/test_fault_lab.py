"""Each fault lab switch, flipped by `manage.py lab` in this process, reaches a real `run_consumers` (or
`run_relay`) in another: its effect shows, and once it is flipped back the consumers catch up and every
invariant the lab checks holds (docs/fault-lab.md)."""

import html
import re
import time
from decimal import Decimal
from pathlib import Path
from subprocess import Popen

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

from consumers import checkpoints, faults, status
from consumers.faults import Fault, switches
from consumers.models import Heartbeat
from eventlog import store
from eventlog.models import Event
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


def held_back_on_the_panel() -> str:
    client = APIClient()
    client.force_login(get_user_model().objects.get_or_create(username="lab-staff", is_staff=True)[0])
    found = re.search(r'<p class="lab-held-back"><strong>(.*?)</p>', client.get("/staff/lab/panel/").content.decode())
    return html.unescape(found.group(1)) if found else ""


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


def held() -> tuple[str, int]:
    """The cart the holder added an item to, and the position of that held event, as its note says them."""
    found = re.search(r"holding \S+ added to cart (\S+) at position (\d+)", switches()[Fault.HOLD].note)
    assert found, switches()[Fault.HOLD].note
    return found[1], int(found[2])


def holding() -> bool:
    return "holding" in switches()[Fault.HOLD].note


def test_a_held_transaction_stops_every_reader_before_it_and_nothing_after_it_is_skipped(
    catalog: None, tmp_path: Path
) -> None:
    process = started(tmp_path, "run_consumers", "--only", "order_history", running="order_history")
    try:
        first = place_an_order()
        wait_for(lambda: OrderHistory.objects.filter(order_id=first).exists(), what="a first order")
        call_command("lab", "on", "hold")
        wait_for(holding, what="the holder holding an item added to its cart")
        cart_id, held_at = held()
        # The holder's cart was started (one event, committed) just before the held add.
        wait_for(lambda: checkpoints.read_position("order_history") == held_at - 1, what="the reader at the gap")
        started_placing = time.monotonic()
        later = [place_an_order() for _ in range(2)]
        assert time.monotonic() - started_placing < 10  # other commands commit around the held one
        assert Event.objects.filter(position__gt=held_at).count() == 6  # committed after the held event
        assert not Event.objects.filter(position=held_at).exists()  # which nobody else can see yet
        time.sleep(WATCH)
        assert checkpoints.read_position("order_history") == held_at - 1  # it waits; it does not skip the gap
        assert not OrderHistory.objects.filter(order_id__in=later).exists()
        assert status.lag(held_at - 1, ("cart",))[0] == 6  # the two later orders, three events each
        assert_invariants_hold()
        # The panel names what holds the readers (eventlog/horizon.py): the holder's session, in this database.
        said = held_back_on_the_panel()
        assert said.startswith("Readers held back</strong>: the log's newest event has waited ")
        assert f"database {connection.settings_dict['NAME']}, idle in transaction;" in said
        call_command("lab", "off", "hold")
        wait_for(lambda: OrderHistory.objects.filter(order_id__in=later).count() == 2, what="the later orders")
        wait_for(lambda: held_back_on_the_panel() == "", what="the panel no longer saying the readers are held")
        wait_for(lambda: checkpoints.read_position("order_history") == held_at + 6, what="the reader past the gap")
        wait_for(lambda: "released" in switches()[Fault.HOLD].note, what="the holder's release note")
        assert "(switched off)" in switches()[Fault.HOLD].note
        released = Event.objects.get(position=held_at)
        assert (released.stream_id, released.type, released.version) == (f"cart-{cart_id}", "ItemAdded", 2)
        assert_invariants_hold()
    finally:
        call_command("lab", "off", "hold")
        code = stop(process)
    assert code == 0


@pytest.mark.kafka
def test_a_held_transaction_stops_the_relay_before_it_and_kafka_gets_every_event_once(
    catalog: None, kafka: Broker, tmp_path: Path
) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": django_settings.KAFKA_TOPIC_PREFIX}
    relay = started(tmp_path, "run_relay", running="relay", **env)
    consumers = started(
        tmp_path, "run_consumers", "--only", "order_history", "--transport", "kafka", running="order_history", **env
    )
    try:
        call_command("lab", "on", "hold")
        wait_for(holding, what="the holder holding an item added to its cart")
        _, held_at = held()
        wait_for(lambda: relay_checkpoint() == held_at - 1, what="the relay at the gap")
        later = [place_an_order() for _ in range(2)]
        time.sleep(WATCH)
        assert relay_checkpoint() == held_at - 1  # nothing after the hole reaches Kafka before the hole
        assert not OrderHistory.objects.filter(order_id__in=later).exists()
        call_command("lab", "off", "hold")
        wait_for(lambda: OrderHistory.objects.filter(order_id__in=later).count() == 2, what="the later orders")
        wait_for(lambda: relay_checkpoint() == held_at + 6, what="the relay past the gap")
        assert store.head_position() == held_at + 6
        assert_every_event_in_kafka_in_per_key_order()
        assert_invariants_hold()
    finally:
        call_command("lab", "off", "hold")
        codes = stop(consumers), stop(relay)
    assert codes == (0, 0)


def test_a_hold_ends_by_itself_after_its_limit(catalog: None, tmp_path: Path) -> None:
    process = started(
        tmp_path, "run_consumers", "--only", "order_history", running="order_history", CARTLOG_LAB_HOLD_MAX_SECONDS="2"
    )
    try:
        call_command("lab", "on", "hold")
        wait_for(holding, what="the holder holding an item added to its cart")
        _, held_at = held()
        wait_for(lambda: not switches()[Fault.HOLD].on, what="the switch turning itself off")
        assert "LAB_HOLD_MAX_SECONDS (2 s) reached" in switches()[Fault.HOLD].note
        wait_for(lambda: Event.objects.filter(position=held_at).exists(), what="the held event, committed")
        time.sleep(SETTLE * 2)
        assert switches()[Fault.HOLD].fired == 1  # held once per switch-on, not again
        assert_invariants_hold()
    finally:
        code = stop(process)
    assert code == 0


@pytest.mark.kafka
def test_on_kafka_a_paused_consumer_catches_up_and_a_batch_delivered_twice_changes_nothing(
    catalog: None, kafka: Broker, tmp_path: Path
) -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": django_settings.KAFKA_TOPIC_PREFIX}
    relay = started(tmp_path, "run_relay", running="relay", **env)
    args = ["run_consumers", "--only", "product_activity", "--transport", "kafka"]
    consumers = started(tmp_path, *args, running="product_activity", **env)
    try:
        call_command("lab", "on", "pause", "--consumer", "product_activity")
        time.sleep(SETTLE)
        place_an_order()
        wait_for(lambda: relay_checkpoint() == store.head_position(), what="the order in Kafka")
        time.sleep(WATCH)
        assert activity() == (0, 0)  # in Kafka, not read: paused
        assert_invariants_hold()
        call_command("lab", "on", "duplicate", "--consumer", "product_activity")
        call_command("lab", "off", "pause")
        wait_for(lambda: "twice" in switches()[Fault.DUPLICATE].note, what="the duplicate delivered")
        wait_for(lambda: "dropped" in (tmp_path / "process.log").read_text(), what="the repeat dropped")
        row = ProductActivity.objects.get(sku="COF-001")
        assert (row.times_added, row.times_bought, row.units_sold, row.revenue) == (1, 1, 1, Decimal("12.50"))
        assert_invariants_hold()
    finally:
        codes = stop(consumers), stop(relay)
    assert codes == (0, 0)


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


def test_a_crash_note_names_the_ends_of_a_kafka_batch_in_partition_order() -> None:
    # A Kafka batch is in partition order: its first and last positions were named as its ends
    # ("crashed order_history mid-batch (positions 115..114)", seen on a shop on Kafka).
    assert faults._span([115, 116, 112, 113, 114]) == "positions 112..116"
    assert faults._span([120, 3, 7]) == "3 events in 3..120"
    assert faults._span([9]) == "positions 9..9"
