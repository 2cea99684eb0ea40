"""Consumers woken by the log (consumers/wakeup.py): an append reaches an idle consumer without its poll.

The poll is set to 30 s here, so a view that moves within a few seconds was
moved by the notification. Behaviour, not a benchmark: bench/wakeup.py measures it.
"""

import re
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from django.db import connection

from carts import services
from carts.handler import Context
from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.transports import TableTransport
from kernel.principal import Principal
from projections import product_activity
from projections.models import ProductActivity
from tests.fault_helpers import terminate_backends

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
LONG_POLL = 30.0
WOKEN_WITHIN = 2.0
LISTEN_SESSION = "cartlog-listen pid=%"


def eventually(condition: Callable[[], object], timeout: float, what: str) -> float:
    """Seconds until `condition()` holds; fails after `timeout`."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, f"{what}: still not after {timeout}s"
        time.sleep(0.01)
    return time.monotonic() - start


def listen_pids() -> set[int]:
    """Backend pids of the LISTEN sessions of this database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name LIKE %s AND query ILIKE 'LISTEN%%'",
            [LISTEN_SESSION],
        )
        return {int(row[0]) for row in cursor.fetchall()}


def listening() -> bool:
    return bool(listen_pids())


def times_added(sku: str) -> int:
    row = ProductActivity.objects.filter(sku=sku).first()
    return row.times_added if row else 0


@pytest.fixture
def idle_consumer(catalog: None) -> Iterator[None]:
    """product_activity on the table transport, polling every 30 s, idle once it has caught up."""
    stop = threading.Event()
    worker = runner.Worker(
        consumer=ProjectionConsumer(product_activity), transport_factory=TableTransport, stop=stop,
        idle_seconds=LONG_POLL,
    )  # fmt: skip
    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    try:
        eventually(listening, 10, "the LISTEN session")
        time.sleep(0.3)  # let the worker settle into its long wait
        yield
    finally:
        stop.set()
        thread.join(timeout=10)
        assert not thread.is_alive(), "the worker should stop within a wait slice"
    eventually(lambda: not listening(), 5, "the LISTEN session closed with its last user")


def add_coffee() -> None:
    context = Context(actor=Principal.parse("user:1"))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 1)


def test_an_append_wakes_an_idle_consumer_without_waiting_for_its_poll(idle_consumer: None) -> None:
    for expected in (1, 2):  # twice: the second proves the consumer went back to waiting on the log
        add_coffee()
        eventually(lambda n=expected: times_added("COF-001") == n, WOKEN_WITHIN, "the view after an append")  # type: ignore[misc]
        time.sleep(1.0)  # past the re-reads that follow a wake-up: asleep again


def test_a_terminated_listen_session_is_replaced_and_wakes_again(
    idle_consumer: None, caplog: pytest.LogCaptureFixture
) -> None:
    (old,) = listen_pids()
    assert terminate_backends(LISTEN_SESSION) == 1
    # pg_terminate_backend only signals: the old session stays in pg_stat_activity until it has exited,
    # so "a LISTEN session" alone could be the old one. Wait for one with another pid.
    eventually(lambda: listen_pids() - {old}, 15, "a new LISTEN session after the old one was terminated")
    # Said in one line: psycopg's message runs over three ("server closed the connection unexpectedly
    # \n\tThis probably means ..."), which broke the plain log format into lines of no record.
    (said,) = [r.getMessage() for r in caplog.records if r.name == "consumers.wakeup" and r.levelname == "WARNING"]
    assert re.fullmatch(r"LISTEN cartlog_events: [^\n]+; readers poll; reconnecting in 0\.\ds", said), said
    time.sleep(0.3)
    add_coffee()
    eventually(lambda: times_added("COF-001") == 1, WOKEN_WITHIN, "the view after an append")


def test_a_rolled_back_append_changes_nothing_and_the_next_commit_wakes_the_consumer(idle_consumer: None) -> None:
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        add_coffee()
        raise RuntimeError("rolled back")
    add_coffee()
    eventually(lambda: times_added("COF-001") == 1, WOKEN_WITHIN, "the view after the committed append")
