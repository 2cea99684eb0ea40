"""A cart command on PostgreSQL is two statements and no transaction block around them
(carts/handler.py), and its one write keeps the append on the fast path of `eventlog_append`.

The statements are counted where Django sends them (an execute wrapper); BEGIN and
COMMIT would come from `atomic()`, so the wrapper also notes whether a transaction
block was open. The lock test reads `pg_locks` inside a transaction of its own,
right after the append: a fast append holds the shared SLOW_LOCK, a slow one (a
transaction that wrote before it) the exclusive one.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import uuid4

import pytest
from django.db import connection, transaction

from cartlog import bootstrap
from carts import errors, handler, services, snapshots
from carts.handler import Context
from carts.models import CartSnapshot
from eventlog.alongside import LAST_VERSION, Appended, Row
from eventlog.stores.postgres import SLOW_LOCK, PostgresStore
from kernel.principal import Principal
from projections.models import CartView
from tests.store_contract import new, stream

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ALICE = Context(actor=Principal.user(1))


@contextmanager
def statements() -> Iterator[list[tuple[str, bool]]]:
    """Each statement sent meanwhile, and whether a transaction block was open for it."""
    sent: list[tuple[str, bool]] = []

    def note(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append((sql.strip(), connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        yield sent


def reads_the_catalog(sql: str) -> bool:
    """The product's price, read by carts.services before the command (from memory when the
    read caches are on; the test settings turn them off)."""
    return sql.startswith("SELECT") and "catalog_product" in sql


@contextmanager
def another_process() -> Iterator[None]:
    """Commands sent meanwhile go through a handler of their own, as in another process:
    the process's handler does not learn what they write."""
    mine = handler.installed()
    handler.install(bootstrap.command_handler())
    try:
        yield
    finally:
        handler.install(mine)


def kinds(sent: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The first word of each cart statement sent, and whether a transaction block was open."""
    return [(sql.split()[0], in_block) for sql, in_block in sent if not reads_the_catalog(sql)]


def test_a_command_on_a_cart_its_process_wrote_last_is_its_write_alone(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)  # the product is now in the catalog's memory, if cached
    with statements() as sent:
        added = services.add_to_cart(ALICE, cart_id, "COF-001", 2)
    assert kinds(sent) == [("WITH", False)]
    write = sent[-1][0]
    assert "eventlog_append" in write and "projection_cart_view" in write
    assert added.state.version == 3 and added.state.item_count == 3
    assert CartView.objects.get(cart_id=cart_id).item_count == 3


def test_an_add_to_cart_on_a_cart_its_process_does_not_remember_is_one_read_and_one_write(catalog: None) -> None:
    with another_process():
        cart_id = services.start_cart(ALICE).state.cart_id
        services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    with statements() as sent:
        services.add_to_cart(ALICE, cart_id, "COF-001", 2)
    assert kinds(sent) == [("SELECT", False), ("WITH", False)]
    assert "carts_snapshot" in next(sql for sql, _ in sent if not reads_the_catalog(sql))  # snapshot, events after it
    assert CartView.objects.get(cart_id=cart_id).item_count == 3


def test_a_stale_guess_costs_a_failed_write_that_brings_back_what_it_missed(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)  # remembered at version 2
    with another_process():
        services.add_to_cart(ALICE, cart_id, "KIT-001", 1)  # version 3, unknown to this process
    with statements() as sent:
        added = services.add_to_cart(ALICE, cart_id, "COF-001", 2)
    # the write expecting version 2 writes nothing and returns event 3; the write decided again
    assert kinds(sent) == [("WITH", False), ("WITH", False)]
    assert added.state.version == 4
    assert {line.sku: line.quantity for line in added.state.lines} == {"COF-001": 3, "KIT-001": 1}
    view = CartView.objects.get(cart_id=cart_id)
    assert (view.version, view.item_count) == (4, 4)
    assert [e.version for e in PostgresStore().read_stream(f"cart-{cart_id}")] == [1, 2, 3, 4]


def test_a_refusal_is_never_decided_on_a_guess(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)  # remembered: no TEA-001 in the cart
    with another_process():
        services.add_to_cart(ALICE, cart_id, "KIT-001", 1)
    with statements() as sent:
        removed = services.remove_from_cart(ALICE, cart_id, "KIT-001")  # refused by the guess
    # the guess refuses, so the cart is read, and the command decided on what the log holds
    assert kinds(sent) == [("SELECT", False), ("WITH", False)]
    assert [line.sku for line in removed.state.lines] == ["COF-001"] and removed.state.version == 4


def test_a_command_that_changes_nothing_on_a_guess_is_decided_again_on_the_log(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)  # remembered: quantity 1
    with another_process():
        services.update_quantity(ALICE, cart_id, "COF-001", 5)
    with statements() as sent:
        updated = services.update_quantity(ALICE, cart_id, "COF-001", 1)  # "nothing to change", by the guess
    assert kinds(sent) == [("SELECT", False), ("WITH", False)]
    assert updated.state.line("COF-001").quantity == 1 and updated.state.version == 4  # type: ignore[union-attr]


def test_a_start_cart_is_its_write_alone(catalog: None) -> None:
    """A new cart's stream is empty, and the append's expected version 0 checks that itself."""
    with statements() as sent:
        started = services.start_cart(ALICE)
    assert [(sql.split()[0], in_block) for sql, in_block in sent] == [("WITH", False)]
    assert started.state.version == 1 and started.state.owner == str(ALICE.actor)
    assert CartView.objects.get(cart_id=started.state.cart_id).version == 1


def test_starting_a_cart_that_exists_is_refused_and_writes_nothing(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    bob = Context(actor=Principal.user(2))
    with statements() as sent, pytest.raises(errors.CartAlreadyExistsError):
        services.start_cart(bob, cart_id)
    # the unread write, refused by its expected version, returns the cart's events: refused on them
    assert [sql.split()[0] for sql, _ in sent] == ["WITH"]
    assert [e.version for e in PostgresStore().read_stream(f"cart-{cart_id}")] == [1, 2]
    view = CartView.objects.get(cart_id=cart_id)
    assert (view.version, view.owner, view.item_count) == (2, str(ALICE.actor), 1)


def test_a_start_cart_sent_twice_with_its_key_returns_the_first_outcome(catalog: None) -> None:
    keyed = Context(actor=ALICE.actor, idempotency_key=uuid4().hex)
    cart_id = str(uuid4())
    first = services.start_cart(keyed, cart_id)
    again = services.start_cart(keyed, cart_id)
    assert not first.replayed and again.replayed
    assert again.state.version == 1 and again.state.owner == str(ALICE.actor)
    assert len(PostgresStore().read_stream(f"cart-{cart_id}")) == 1


def test_with_an_idempotency_key_the_record_is_written_in_the_same_statement_and_read_only_on_a_repeat(
    catalog: None,
) -> None:
    keyed = Context(actor=ALICE.actor, idempotency_key=uuid4().hex)
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    with statements() as sent:
        services.add_to_cart(keyed, cart_id, "COF-001", 3)
    [write] = [sql for sql, in_block in sent if not in_block and not reads_the_catalog(sql)]  # the cart remembered
    assert "carts_processed_command" in write and "projection_cart_view" in write
    with statements() as sent:
        again = services.add_to_cart(keyed, cart_id, "COF-001", 3)  # deciding again would add 3 more
    assert again.replayed and again.state.version == 3 and again.state.item_count == 4
    # the write that fails on the taken key, the record, and the cart at the record's version
    commands = [sql for sql, _ in sent if not reads_the_catalog(sql)]
    assert [sql.split()[0] for sql in commands] == ["WITH", "SELECT", "SELECT"]
    assert "carts_processed_command" in commands[1]


def test_the_fiftieth_version_writes_its_snapshot_in_the_same_statement(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    for n in range(3, 50):
        services.update_quantity(ALICE, cart_id, "COF-001", 2 + n % 2)
    with statements() as sent:
        services.update_quantity(ALICE, cart_id, "COF-001", 9)  # version 50
    [write] = [sql for sql, _ in sent if sql.startswith("WITH")]
    assert "carts_snapshot" in write and "projection_cart_view" in write
    assert CartSnapshot.objects.get(cart_id=cart_id).version == snapshots.EVERY == 50


def slow_lock_mode() -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND objid = %s AND pid = pg_backend_pid()",
            [SLOW_LOCK],
        )
        return str(cursor.fetchone()[0])


def a_row(key: str, version: int | Appended = LAST_VERSION) -> Row:
    values = {
        "command_id": key,
        "fingerprint": "f",
        "cart_id": "c",
        "version": version,
        "recorded_at": connection.ops.adapt_datetimefield_value(new().occurred_at),
    }
    return Row(table="carts_processed_command", key="command_id", values=values)


def test_an_append_with_rows_alongside_stays_on_the_fast_path() -> None:
    """The rows' INSERTs run after `eventlog_append` has taken its locks: had one run first, the
    transaction would own an id and the append would take the exclusive lock that serializes
    every append (migration 0003). One row reads the appended version, one does not (a snapshot)."""
    with transaction.atomic():
        PostgresStore().append(stream(), 0, [new(n=1)], alongside=[a_row(uuid4().hex, 1), a_row(uuid4().hex)])
        assert slow_lock_mode() == "ShareLock"


def test_an_append_after_a_write_in_its_transaction_takes_the_slow_path() -> None:
    """The check above can tell the two apart."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()")  # an id, as any earlier write would take
        PostgresStore().append(stream(), 0, [new(n=1)])
        assert slow_lock_mode() == "ExclusiveLock"
