"""Consumers that heal, and leases that hold (issue 11, items 1, 2 and 8), on PostgreSQL.

Real `run_consumers` processes under real faults: the database away (no new
sessions, every session cut) with no traffic, their connections terminated
mid-batch under load, two processes on the same consumers with the lease's
own session terminated again and again. Afterwards the async views equal a
rebuild from position 0, and the logs of all processes show every batch
committed once, by one holder.
"""

import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from carts import services
from carts.handler import Context
from consumers import checkpoints, status
from consumers.models import Heartbeat
from kernel.principal import Principal
from projections import registry
from projections.models import OrderHistory
from rebuilds import service as rebuilds
from tests.fault_helpers import (
    APP,
    assert_no_batch_twice,
    committed_ranges,
    lease_holder_pid,
    outage,
    report,
    start_manage,
    stop,
    terminate_backends,
    wait_for,
)
from tests.integration.rebuild_support import shop

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

VIEWS = ["product_activity", "order_history"]
ONLY = [arg for name in VIEWS for arg in ("--only", name)]


def place_an_order() -> str:
    context = Context(actor=Principal.parse("user:7"))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 1)
    return str(services.checkout(context, cart_id).state.order_id)


def caught_up(names: list[str]) -> bool:
    consumers = {p.NAME: p for p in registry.asynchronous()}
    return all(status.lag(checkpoints.read_position(n), consumers[n].CATEGORIES)[0] == 0 for n in names)


def assert_views_equal_a_rebuild() -> None:
    for name in VIEWS:
        assert rebuilds.rebuild(name, verify=True).differences == [], f"{name} differs from a rebuild"


class Writer(threading.Thread):
    """Shopping sessions in the background: at least `carts` of them, then on until `stop` is set.

    A fault test cuts sessions while there is work, so it keeps the writer going until what it
    needs has happened (enough cuts, the lease changed hands) however fast the machine is.
    """

    def __init__(self, carts: int) -> None:
        super().__init__(daemon=True)
        self.carts, self.written = carts, 0
        self.done, self.stop = threading.Event(), threading.Event()

    def run(self) -> None:
        try:
            while self.written < self.carts or not self.stop.is_set():
                shop(1, seed=self.written)
                self.written += 1
        finally:
            connection.close()
            self.done.set()

    def needs_more(self) -> bool:
        return self.written < self.carts

    def finish(self) -> None:
        self.stop.set()
        self.join()


def test_run_consumers_outlives_database_outages_with_no_traffic_and_resumes(catalog: None, tmp_path: Path) -> None:
    log = tmp_path / "consumers.log"
    process = start_manage(["run_consumers"], log, "outage")
    try:
        names = ["product_activity", "order_history", "claim_validator", "account_creator", "archiver"]
        wait_for(lambda: Heartbeat.objects.filter(name__in=names).count() == len(names), what="every heartbeat")
        for n in range(3):
            time.sleep(1.0 * n)
            outage(3.0)  # every session cut, none allowed, for 3 s
        back, fresh_after = time.monotonic(), time.time()
        assert process.poll() is None, "run_consumers exited during the outages"
        order_id = place_an_order()
        took = wait_for(lambda: OrderHistory.objects.filter(order_id=order_id).exists(), what="order_history")
        report(f"table consumers, 3 database outages of 3 s, no traffic: an order placed as the database came back "
               f"was in order_history {took:.2f}s later")  # fmt: skip

        def every_thread_beats() -> bool:
            return all(beat.beat_at.timestamp() > fresh_after for beat in Heartbeat.objects.filter(name__in=names))

        wait_for(every_thread_beats, timeout=30, what="a fresh heartbeat from every consumer")
        report(f"table consumers: every consumer beating again {time.monotonic() - back:.2f}s after the outage")
        call_command("consumers_healthy", *[arg for name in names for arg in ("--only", name)])
    finally:
        code = stop(process)
    assert code == 0, log.read_text()[-3000:]
    assert "retrying in" in log.read_text()


def test_connections_terminated_mid_batch_lose_nothing_and_apply_nothing_twice(
    seeded_catalog: None, tmp_path: Path
) -> None:
    log = tmp_path / "consumers.log"
    process = start_manage(["run_consumers", *ONLY], log, "midbatch", CONSUMER_BATCH_SIZE="5")
    writer = Writer(carts=250)
    writer.start()
    cuts = 0
    deadline = time.monotonic() + 120
    try:
        # Cut while the writes go on; the writer keeps going until enough cuts were made.
        while time.monotonic() < deadline and (writer.needs_more() or cuts < 5):
            time.sleep(0.15)
            cuts += terminate_backends(f"{APP}-midbatch%") + terminate_backends("cartlog-lease %")
        writer.finish()
        took = wait_for(lambda: caught_up(VIEWS), timeout=90, what="the views to catch up")
        report(f"table consumers after {cuts} terminated sessions under load: caught up {took:.2f}s after the writes")
        assert process.poll() is None, "run_consumers exited"
    finally:
        writer.stop.set()  # a failed test must not leave it writing
        stop(process)
    assert cuts >= 5  # sessions really were cut under load (how many depends on the machine's speed)
    assert "rolled back" in log.read_text() or "retrying in" in log.read_text()
    for name in VIEWS:
        assert_no_batch_twice(committed_ranges([log], f"consumer {name}"))
    assert_views_equal_a_rebuild()


def test_two_run_consumers_take_turns_on_the_lease_and_commit_every_batch_once(
    seeded_catalog: None, tmp_path: Path
) -> None:
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    processes = [start_manage(["run_consumers", *ONLY], path, path.stem) for path in logs]
    writer = Writer(carts=250)
    holders: dict[str, set[int]] = {name: set() for name in VIEWS}
    try:
        wait_for(lambda: lease_holder_pid("consumer:order_history") is not None, what="a lease holder")
        writer.start()
        deadline = time.monotonic() + 120
        both = {p.pid for p in processes}
        # Cut while the writes go on; the writer keeps going until each lease has changed hands.
        while time.monotonic() < deadline and (writer.needs_more() or any(holders[n] != both for n in VIEWS)):
            time.sleep(0.7)
            for name in VIEWS:
                holder = lease_holder_pid(f"consumer:{name}")
                if holder is not None:
                    holders[name].add(holder)
                    # Cut the holder's lease session (Django's connection of that process stays up).
                    terminate_backends(f"cartlog-lease consumer:{name} pid={holder}")
        writer.finish()
        wait_for(lambda: caught_up(VIEWS), timeout=90, what="the views to catch up")
        assert all(p.poll() is None for p in processes), "a run_consumers exited"
    finally:
        writer.stop.set()  # a failed test must not leave it writing
        for process in processes:
            stop(process)
    for name in VIEWS:
        assert holders[name] == {p.pid for p in processes}, f"the {name} lease should have changed hands"
    texts = [path.read_text() for path in logs]
    assert all("LOST" in text for text in texts), "each holder should have noticed it lost the lease"
    for name in VIEWS:
        ranges = committed_ranges(logs, f"consumer {name}")
        assert_no_batch_twice(ranges)
    assert_views_equal_a_rebuild()
