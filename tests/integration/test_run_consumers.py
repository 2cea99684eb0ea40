"""`run_consumers` as operators run it: a real process, every consumer, stopped by SIGTERM."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from carts import services
from carts.handler import Context
from consumers.models import Heartbeat
from kernel.principal import Principal
from projections.models import OrderHistory
from tests.kafka_broker import Broker
from tests.kafka_helpers import relay_everything
from tests.log_helpers import wait_until_readable
from tests.processes import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def place_an_order() -> str:
    context = Context(actor=Principal.parse("user:7"))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 1)
    return str(services.checkout(context, cart_id).state.order_id)


def run_consumers_until_the_order_shows(extra_env: dict[str, str]) -> None:
    order_id = place_an_order()
    env = {**os.environ, "DATABASE_URL": database_url(), "CONSUMER_POLL_SECONDS": "0.05", **extra_env}
    process = subprocess.Popen(
        [sys.executable, "manage.py", "run_consumers"], cwd=Path(settings.BASE_DIR), env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not OrderHistory.objects.filter(order_id=order_id).exists():
            assert time.monotonic() < deadline, "order_history never got the order"
            assert process.poll() is None, "run_consumers exited"
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, "SIGTERM should stop it cleanly"


def test_run_consumers_on_the_table_transport_builds_the_views_and_stops_on_sigterm(catalog: None) -> None:
    run_consumers_until_the_order_shows({"KAFKA_BOOTSTRAP_SERVERS": ""})
    assert Heartbeat.objects.filter(name="order_history", transport="table").exists()


@pytest.mark.kafka
@pytest.mark.postgres
def test_run_consumers_with_kafka_runs_the_relay_and_reads_the_topics(catalog: None, kafka: Broker) -> None:
    run_consumers_until_the_order_shows(
        {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX}
    )
    assert Heartbeat.objects.filter(name="relay").exists()
    assert Heartbeat.objects.filter(name="order_history", transport="kafka").exists()


@pytest.mark.django_db
def test_the_kafka_transport_without_a_broker_is_a_clear_error_not_a_traceback(settings: object) -> None:
    from django.core.management import CommandError, call_command

    settings.KAFKA_BOOTSTRAP_SERVERS = ""  # type: ignore[attr-defined]
    with pytest.raises(CommandError, match="--transport kafka needs KAFKA_BOOTSTRAP_SERVERS"):
        call_command("run_consumers", "--once", "--transport", "kafka")


@pytest.mark.django_db(transaction=True)  # committed events: the gap-safe reader sees no open transaction's
def test_once_on_a_backlog_says_how_far_it_got_while_it_works(
    catalog: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It printed nothing until each consumer was done (58 s on 150k events); now a line every few seconds.
    from django.core.management import call_command

    from cartlog.management.commands import run_consumers

    context = Context(actor=Principal.parse("user:1"))
    for _ in range(3):
        cart_id = services.start_cart(context).state.cart_id
        services.add_to_cart(context, cart_id, "COF-001", 1)
    wait_until_readable()
    monkeypatch.setattr(run_consumers, "PROGRESS_SECONDS", 0.0)  # every batch
    monkeypatch.setattr(settings, "CONSUMER_BATCH_SIZE", 2, raising=False)
    call_command("run_consumers", "--once", "--transport", "table", "--only", "product_activity")
    out = capsys.readouterr().out
    assert "product_activity: 2 events so far..." in out and "product_activity: 6 events" in out


@pytest.mark.kafka
@pytest.mark.postgres
def test_run_consumers_once_on_kafka_reads_the_backlog_before_it_exits(catalog: None, kafka: Broker) -> None:
    """`--once` is "what is there now": a member of a group that has not joined yet has read nothing,
    and its first empty poll used to end the run with "order_history: 0 events"."""
    orders = {place_an_order(), place_an_order()}
    relay_everything()
    env = {**os.environ, "DATABASE_URL": database_url(), "KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap,
           "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "manage.py", "run_consumers", "--once", "--only", "order_history"],
        cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Two carts of three events each: CartStarted, ItemAdded, CheckedOut.
    assert "order_history: 6 events" in done.stdout.splitlines()
    assert set(OrderHistory.objects.values_list("order_id", flat=True)) == orders
