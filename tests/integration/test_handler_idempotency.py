"""Invariant 5 at the handler: a command id seen before returns its first outcome and
appends nothing; the same id for a different command is refused."""

import threading

import pytest
from django.db import connection, connections

from carts import errors, handler, services
from carts.handler import Context, Outcome
from eventlog import store
from kernel.principal import Principal

ALICE = Principal.user(1)


def keyed(key: str, actor: Principal = ALICE) -> Context:
    return Context(actor=actor, idempotency_key=key)


def event_count() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM eventlog_event")
        return int(cursor.fetchone()[0])


@pytest.fixture
def cart(catalog: None) -> str:
    return services.start_cart(Context(actor=ALICE)).state.cart_id


@pytest.mark.django_db
def test_repeating_a_command_returns_the_first_outcome_and_appends_nothing(cart: str) -> None:
    first = services.add_to_cart(keyed("k1"), cart, "COF-001", 2)
    count = event_count()
    again = services.add_to_cart(keyed("k1"), cart, "COF-001", 2)
    assert (first.replayed, again.replayed) == (False, True)
    assert again.state == first.state and again.events == []
    assert event_count() == count
    assert store.stream_version(f"cart-{cart}") == first.state.version


@pytest.mark.django_db
def test_a_late_repeat_returns_the_cart_as_that_command_left_it(cart: str) -> None:
    first = services.add_to_cart(keyed("k1"), cart, "COF-001", 2)
    services.add_to_cart(Context(actor=ALICE), cart, "KIT-001", 1)
    again = services.add_to_cart(keyed("k1"), cart, "COF-001", 2)
    assert again.state == first.state
    assert again.state.line("KIT-001") is None


@pytest.mark.django_db
def test_a_different_command_with_the_same_key_is_refused_and_appends_nothing(cart: str) -> None:
    services.add_to_cart(keyed("k1"), cart, "COF-001", 2)
    count = event_count()
    for different in (
        lambda: services.add_to_cart(keyed("k1"), cart, "COF-001", 3),
        lambda: services.add_to_cart(keyed("k1"), cart, "KIT-001", 2),
        lambda: services.remove_from_cart(keyed("k1"), cart, "COF-001"),
    ):
        with pytest.raises(errors.IdempotencyKeyReusedError):
            different()
    assert event_count() == count


@pytest.mark.django_db
def test_a_retry_of_a_command_that_changed_nothing_does_not_undo_a_later_change(cart: str) -> None:
    # Device A sets the quantity it already has (nothing changes), device B sets 5, A's retry comes:
    # it was decided again and set 3 over B's 5.
    services.add_to_cart(Context(actor=ALICE), cart, "COF-001", 3)
    first = services.update_quantity(keyed("set-3"), cart, "COF-001", 3)
    services.update_quantity(Context(actor=ALICE), cart, "COF-001", 5)
    count = event_count()

    again = services.update_quantity(keyed("set-3"), cart, "COF-001", 3)

    assert (first.events, first.state.version) == ([], 2)
    assert again.replayed and again.state == first.state  # the cart as the first send found it
    assert event_count() == count
    assert handler.load(cart).line("COF-001").quantity == 5  # type: ignore[union-attr]
    with pytest.raises(errors.IdempotencyKeyReusedError):
        services.update_quantity(keyed("set-3"), cart, "COF-001", 4)


@pytest.mark.django_db
def test_keys_belong_to_their_actor(cart: str) -> None:
    mine = services.start_cart(keyed("shared-key"))
    theirs = services.start_cart(keyed("shared-key", actor=Principal.parse("user:2")))
    assert mine.state.cart_id != theirs.state.cart_id
    assert not theirs.replayed


@pytest.mark.django_db
def test_repeating_start_cart_returns_the_same_cart(catalog: None) -> None:
    first = services.start_cart(keyed("start-1"))
    count = event_count()
    again = services.start_cart(keyed("start-1"))  # each send makes a fresh cart id
    assert again.replayed and again.state.cart_id == first.state.cart_id
    assert event_count() == count


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_with_one_key_append_once(cart: str) -> None:
    threads, barrier = 6, threading.Barrier(6)
    outcomes: list[Outcome] = []
    failures: list[BaseException] = []

    def send() -> None:
        try:
            barrier.wait(10)
            outcomes.append(services.add_to_cart(keyed("dup"), cart, "COF-001", 5))
        except BaseException as error:
            failures.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=send) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)

    assert not failures, failures
    assert len(outcomes) == threads
    assert sum(not outcome.replayed for outcome in outcomes) == 1
    assert {outcome.state.version for outcome in outcomes} == {2}
    assert [e.type for e in store.read_stream(f"cart-{cart}")] == ["CartStarted", "ItemAdded"]
    assert all(outcome.state.line("COF-001").quantity == 5 for outcome in outcomes)  # type: ignore[union-attr]
