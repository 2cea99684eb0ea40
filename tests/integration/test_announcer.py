"""Appends announced just after their commit by the process's announcer (eventlog/announcer.py).

A LISTEN session of the test's own (`Ear`) hears every announcement with the
backend pid that sent it. A cart append must be announced by the announcer's
session and never by the append's own (a notifying transaction takes PostgreSQL's
notification lock through its commit), only once it has committed, and again after
the database was away. A product append, which the read caches watch, still
notifies from its own transaction (settings.EVENTLOG_ANNOUNCE_AT_COMMIT).
"""

import os
import time
from collections.abc import Iterator
from decimal import Decimal

import psycopg
import pytest
from django.db import connection, transaction
from psycopg import sql

from carts import services
from carts.handler import Context
from catalog import services as catalog_services
from eventlog import announcer
from eventlog.announcer import Announcer
from eventlog.sessions import connection_kwargs
from kernel.principal import Principal
from tests.fault_helpers import outage

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

CART = {("cartlog_events", "cart"), ("cartlog_events.cart", "cart")}
PRODUCT = {("cartlog_events", "product"), ("cartlog_events.product", "product")}


class Ear:
    """A LISTEN session on every category's channel and on the cart's and the product's."""

    def __init__(self) -> None:
        self.session = psycopg.connect(**connection_kwargs("cartlog-test-ear"))
        for channel in ("cartlog_events", "cartlog_events.cart", "cartlog_events.product"):
            self.session.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))

    def heard(self, seconds: float) -> list[tuple[str, str, int]]:
        """(channel, payload, sender's pid) of what arrives within `seconds`."""
        return [(n.channel, n.payload, n.pid) for n in self.session.notifies(timeout=seconds)]

    def until(self, wanted: set[tuple[str, str]], seconds: float) -> list[tuple[str, str, int]]:
        """What arrives until every (channel, payload) in `wanted` has; fails after `seconds`."""
        heard: list[tuple[str, str, int]] = []
        deadline = time.monotonic() + seconds
        while not wanted <= {(channel, payload) for channel, payload, _ in heard}:
            left = deadline - time.monotonic()
            assert left > 0, f"heard only {heard} in {seconds}s, wanted {wanted}"
            heard += self.heard(min(left, 0.1))
        return heard


@pytest.fixture
def ear() -> Iterator[Ear]:
    listening = Ear()
    yield listening
    listening.session.close()


def start_cart() -> None:
    services.start_cart(Context(actor=Principal.parse("user:1")))


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def announcer_sessions() -> list[int]:
    """The backend pids of this process's announcer sessions (one, or none)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", [f"cartlog-announce pid={os.getpid()}"]
        )
        return [int(pid) for (pid,) in cursor.fetchall()]


def announcer_pid() -> int:
    [pid] = announcer_sessions()
    return pid


def test_a_cart_append_is_announced_by_the_announcers_session_not_by_its_own(ear: Ear) -> None:
    writer = backend_pid()
    start_cart()
    heard = ear.until(CART, 5)
    assert {(channel, payload) for channel, payload, _ in heard} == CART
    assert {pid for _, _, pid in heard} == {announcer_pid()}
    assert announcer_pid() != writer


def test_an_append_is_announced_only_once_its_transaction_commits(ear: Ear) -> None:
    with transaction.atomic():
        start_cart()
        assert ear.heard(0.5) == []  # appended, not committed: nothing yet
    ear.until(CART, 5)


def test_a_rolled_back_append_is_never_announced(ear: Ear) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        start_cart()
        raise RuntimeError("changed our mind")
    assert ear.heard(1.0) == []


def test_a_product_append_notifies_from_its_own_transaction_for_the_read_caches(ear: Ear) -> None:
    writer = backend_pid()
    catalog_services.list_product(
        "TEA-001", name="Sencha", category="Tea", price=Decimal("7.00"), actor="staff:test"
    )  # fmt: skip
    heard = ear.until(PRODUCT, 5)
    assert {pid for channel, _, pid in heard if (channel, "product") in PRODUCT} == {writer}


def test_appends_while_the_announcer_rests_share_one_announcement_after_the_rest(ear: Ear) -> None:
    burst = Announcer(gap=0.3, name="cartlog-test-announce")
    try:
        burst.appended("cart")
        ear.until(CART, 5)  # after a quiet spell: at once
        first = time.monotonic()
        for _ in range(10):  # ten more appends while it rests (microseconds, far under 0.3 s)
            burst.appended("cart")
        ear.until(CART, 5)
        assert time.monotonic() - first >= 0.2  # they waited for the rest to end...
        assert ear.heard(0.8) == []  # ...and one announcement carried all ten
        assert burst.sent == 2
    finally:
        burst.close()


def test_the_announcer_comes_back_by_itself_after_the_database_was_away(ear: Ear) -> None:
    start_cart()
    ear.until(CART, 5)
    before = announcer_pid()
    ear.session.close()
    outage(2.0)  # every session cut (the announcer's too), none allowed, for 2 s
    connection.close()  # the test's own session died with the others
    listening = Ear()
    try:
        start_cart()
        heard = listening.until(CART, 15)  # the announcer reconnects after its backoff and announces
        assert {pid for _, _, pid in heard} == {announcer_pid()} != {before}
    finally:
        listening.session.close()


def test_stop_sends_what_is_pending_and_closes_the_session(ear: Ear) -> None:
    announcer.announcer().appended("cart")
    announcer.stop()
    ear.until(CART, 5)
    assert announcer_sessions() == []


def test_with_listen_off_no_append_is_announced(ear: Ear, settings) -> None:  # type: ignore[no-untyped-def]
    """Behind a pooler in transaction mode nobody can LISTEN (CONSUMER_LISTEN off): readers poll."""
    settings.CONSUMER_LISTEN = False
    start_cart()
    catalog_services.list_product("TEA-002", name="Hojicha", category="Tea", price=Decimal("6.00"), actor="staff:test")
    assert ear.heard(1.0) == []
