"""A command's two statements go over libpq without a cursor (eventlog/stores/wire.py),
and that path behaves as a cursor would: inside a transaction it steps aside, a
session cut by the server is an error Django sees and recovers from, and a session
whose prepared statements were discarded (as a pooler does) prepares them again.
"""

import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection, transaction
from psycopg import pq

from carts import handler, services, streams
from carts.handler import Context
from eventlog import store
from eventlog.stores import wire
from kernel.principal import Principal

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ALICE = Context(actor=Principal.user(1))


@contextmanager
def sent_with_a_cursor() -> Iterator[list[bool]]:
    """For each of the command's statements sent meanwhile, whether a cursor sent it (the
    product's price, read before the command by carts.services, is not the command's)."""
    cursors: list[bool] = []

    def note(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if "catalog_product" not in sql:
            cursors.append(context["cursor"] is not None)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        yield cursors


def lines(cart_id: str) -> list[tuple[str, int]]:
    return [(line.sku, line.quantity) for line in handler.installed().load(cart_id).lines]


def test_outside_a_transaction_both_statements_go_without_a_cursor(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    handler.installed().last_written.clear()  # type: ignore[union-attr]  # so that the cart is read first
    with sent_with_a_cursor() as cursors:
        services.add_to_cart(ALICE, cart_id, "COF-001", 2)
    assert cursors == [False, False]
    assert lines(cart_id) == [("COF-001", 3)]
    assert len(prepared_here()) >= 2  # prepared on this session, once each


def prepared_here() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE 'cartlog%%'")
        return [name for (name,) in cursor.fetchall()]


def test_inside_a_transaction_a_cursor_sends_them_and_a_rollback_undoes_the_command(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)

    class Undo(Exception):
        pass

    with sent_with_a_cursor() as cursors, pytest.raises(Undo), transaction.atomic():
        services.add_to_cart(ALICE, cart_id, "KIT-001", 1)
        raise Undo
    assert cursors == [True] * 4  # a savepoint (the handler nests an atomic), the read, the write, its release
    assert lines(cart_id) == [("COF-001", 1)]  # the append was part of the transaction rolled back


def test_a_session_the_server_ended_is_an_error_then_the_next_connection_works(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)  # the statements are prepared on this session
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as other:  # the same role may end its own sessions
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    with pytest.raises(OperationalError):  # Django's error, not psycopg's: the connection is marked broken
        services.add_to_cart(ALICE, cart_id, "KIT-001", 1)
    connection.close_if_unusable_or_obsolete()  # what Django does at the end of every request
    services.add_to_cart(ALICE, cart_id, "KIT-001", 1)
    assert lines(cart_id) == [("COF-001", 1), ("KIT-001", 1)]


def test_a_connection_cut_under_the_session_is_an_operational_error_then_a_retry_with_its_key_runs_once(
    catalog: None,
) -> None:
    """The session's connection cut under it (its reading side shut, as a reset would): the
    command fails with Django's OperationalError (a 503), and the next connection works.

    Whether the command ran is not known: the cut may come before its statements go out or
    after its write went out and committed (one CI run in many), so the caller retries with
    the same Idempotency-Key, and the item is added once either way. (Without the key that
    second case added it twice.)"""
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    keyed = Context(actor=ALICE.actor, idempotency_key="cut-under-the-session")
    with socket.socket(fileno=os.dup(connection.connection.pgconn.socket)) as cut:
        cut.shutdown(socket.SHUT_RD)  # its reading side: what goes out is answered by an end of file
    with pytest.raises(OperationalError):
        services.add_to_cart(keyed, cart_id, "KIT-001", 1)
    connection.close_if_unusable_or_obsolete()
    services.add_to_cart(keyed, cart_id, "KIT-001", 1)
    assert lines(cart_id) == [("COF-001", 1), ("KIT-001", 1)]
    assert [event.type for event in store.read_stream(streams.stream_id(cart_id))] == [
        "CartStarted", "ItemAdded", "ItemAdded",
    ]  # fmt: skip


def test_an_error_libpq_makes_itself_is_an_operational_error_not_a_database_error(db: None) -> None:
    """libpq's own error result (what it returns for a connection reset while a statement runs)
    carries no SQLSTATE, which psycopg classes as a plain DatabaseError (a 500); the wire path
    must call it what a cursor would, an OperationalError (a 503 with Retry-After)."""
    connection.ensure_connection()
    raw = connection.connection
    own_error = raw.pgconn.make_empty_result(pq.ExecStatus.FATAL_ERROR)
    assert type(psycopg.errors.error_from_result(own_error)) is psycopg.DatabaseError  # what psycopg would say
    with pytest.raises(psycopg.OperationalError):
        wire.check_result(raw, own_error)


def test_statements_a_pooler_discarded_are_prepared_again(catalog: None) -> None:
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    connection.connection.execute("DEALLOCATE ALL")  # what a pooler's DISCARD ALL does to them
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    assert lines(cart_id) == [("COF-001", 2)]


def test_a_statement_the_session_already_holds_is_used_by_its_name(catalog: None) -> None:
    """A statement's name is its digest: a process that lost count of what it prepared on a
    session (here: made to forget) finds the session's own statement under the same name."""
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    held = prepared_here()
    wire._connections[connection.connection].names.clear()
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    assert prepared_here() == held and held
    assert lines(cart_id) == [("COF-001", 2)]


def test_with_server_side_binding_off_nothing_is_prepared(catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """DB_SERVER_SIDE_BINDING=0 is for a pooler that keeps no prepared statements."""
    options = {k: v for k, v in connection.settings_dict["OPTIONS"].items() if k != "server_side_binding"}
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", options)
    connection.close()  # the next statement opens a session with these options
    cart_id = services.start_cart(ALICE).state.cart_id
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    services.add_to_cart(ALICE, cart_id, "COF-001", 1)
    assert prepared_here() == []
    assert lines(cart_id) == [("COF-001", 2)]
    connection.close()  # the session without binding ends with the test
