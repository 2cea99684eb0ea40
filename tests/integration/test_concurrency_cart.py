"""Invariant 2 on PostgreSQL with real threads, each on its own connection:
concurrent commands on one cart never lose an update, versions have no gaps or
duplicates, and a stale If-Match is refused (HTTP 412 in the API)."""

import threading
import time
from uuid import uuid4

import pytest
from django.db import connection, connections, transaction

from carts import errors, services
from carts.handler import Context, load
from eventlog import store
from eventlog.errors import WrongExpectedVersionError
from eventlog.stores.postgres import STREAM_LOCK_CLASS, PostgresStore
from kernel.principal import Principal
from projections import cart_view
from tests.store_contract import WAIT, new
from tests.threads import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

OWNER = Context(actor=Principal.parse("user:1"))


def test_eight_writers_adding_twelve_times_to_one_cart_lose_nothing(catalog: None) -> None:
    cart_id = services.start_cart(OWNER).state.cart_id

    def add_twelve(_: int) -> None:
        for _ in range(12):
            services.add_to_cart(OWNER, cart_id, "COF-001", 1)

    assert run_together(8, add_twelve) == []

    stream = store.read_stream(f"cart-{cart_id}")
    assert [event.version for event in stream] == list(range(1, 98))  # CartStarted + 96, no gap, no duplicate
    assert [event.type for event in stream].count("ItemAdded") == 96
    folded = load(cart_id)
    assert folded.line("COF-001").quantity == 96  # type: ignore[union-attr]
    view = cart_view.read(cart_id)
    assert view is not None and view[0] == folded


def test_writers_on_many_carts_keep_every_stream_gapless(catalog: None) -> None:
    carts = [services.start_cart(OWNER).state.cart_id for _ in range(4)]

    def shuffle_adds(index: int) -> None:
        for step in range(10):
            services.add_to_cart(OWNER, carts[(index + step) % len(carts)], "KIT-001", 1)

    assert run_together(6, shuffle_adds) == []
    for cart_id in carts:
        versions = [e.version for e in store.read_stream(f"cart-{cart_id}")]
        assert versions == list(range(1, len(versions) + 1))
        view = cart_view.read(cart_id)
        assert view is not None and view[0] == load(cart_id)
    assert sum(load(c).item_count for c in carts) == 60


def test_a_stale_if_match_is_refused(catalog: None) -> None:
    cart_id = services.start_cart(OWNER).state.cart_id
    services.add_to_cart(OWNER, cart_id, "COF-001", 1)  # now at version 2
    with pytest.raises(errors.StaleVersionError):
        services.add_to_cart(Context(actor=Principal.parse("user:1"), expected_version=1), cart_id, "COF-001", 1)
    assert store.stream_version(f"cart-{cart_id}") == 2


def test_two_writers_pinning_the_same_version_one_wins_one_is_refused(catalog: None) -> None:
    cart_id = services.start_cart(OWNER).state.cart_id
    pinned = Context(actor=Principal.parse("user:1"), expected_version=1)
    results: list[str] = []

    def add(index: int) -> None:
        try:
            services.add_to_cart(pinned, cart_id, ["COF-001", "KIT-001"][index], 1)
            results.append("ok")
        except errors.StaleVersionError:
            results.append("stale")

    for _ in range(5):  # several rounds, so the race is really run
        cart_id = services.start_cart(OWNER).state.cart_id
        results.clear()
        assert run_together(2, add) == []
        assert sorted(results) == ["ok", "stale"]
        assert [e.version for e in store.read_stream(f"cart-{cart_id}")] == [1, 2]


def test_concurrent_starts_of_one_cart_id_make_one_cart(catalog: None) -> None:
    cart_id = str(uuid4())
    outcomes: list[str] = []

    def start(_: int) -> None:
        try:
            services.start_cart(OWNER, cart_id)
            outcomes.append("started")
        except errors.CartAlreadyExistsError:
            outcomes.append("exists")

    assert run_together(4, start) == []
    assert sorted(outcomes) == ["exists"] * 3 + ["started"]
    assert [e.type for e in store.read_stream(f"cart-{cart_id}")] == ["CartStarted"]


def test_a_one_statement_write_waits_in_line_behind_a_retry_that_holds_the_cart(catalog: None) -> None:
    """A retry holds the cart's stream lock while it reads and appends (`lock_stream`); a
    first try's write, one statement, queues behind it instead of overtaking it, so the
    retry's append goes through and the newcomer is the one that finds the cart changed."""
    log, s = PostgresStore(), f"cart-{uuid4()}"
    log.append(s, 0, [new(n=1)])
    newcomer: list[BaseException] = []

    def write() -> None:
        try:
            PostgresStore().append(s, 1, [new(n=2)], catch_up=10)
        except BaseException as error:
            newcomer.append(error)
        finally:
            connections.close_all()

    with transaction.atomic():
        log.lock_stream(s)  # what a retry does first
        thread = threading.Thread(target=write)
        thread.start()
        deadline = time.monotonic() + WAIT
        while not waiting_for_a_stream_lock() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert waiting_for_a_stream_lock()
        log.append(s, 1, [new(n=3)])  # the retry's append
    thread.join(WAIT)
    assert not thread.is_alive()
    assert [type(error) for error in newcomer] == [WrongExpectedVersionError]
    assert [e.data["n"] for e in log.read_stream(s)] == [1, 3]


def waiting_for_a_stream_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND NOT granted",
            [STREAM_LOCK_CLASS],
        )
        return bool(cursor.fetchone()[0])
