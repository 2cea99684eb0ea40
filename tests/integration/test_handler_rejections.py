"""Invariant 8 through the handler: a rejected command raises a CartError and leaves
no trace — not in the event table, not in cart_view, not in the idempotency records."""

from collections.abc import Callable
from typing import Any
from uuid import uuid4

import pytest
from django.db import connection

from carts import errors, services
from carts.handler import Context
from kernel.principal import Principal

OWNER = Context(actor=Principal.parse("user:1"))
STRANGER = Context(actor=Principal.parse("user:2"))


def database_trace() -> tuple[Any, ...]:
    """Everything a command could leave behind."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), COALESCE(MAX(position), 0) FROM eventlog_event")
        log = cursor.fetchone()
        cursor.execute("SELECT cart_id, version, status, lines FROM projection_cart_view ORDER BY cart_id")
        view = cursor.fetchall()
        cursor.execute("SELECT command_id, version FROM carts_processed_command ORDER BY command_id")
        processed = cursor.fetchall()
    return tuple(log), view, processed


@pytest.fixture
def open_cart(catalog: None) -> str:
    cart_id = str(uuid4())
    services.start_cart(OWNER, cart_id)
    services.add_to_cart(OWNER, cart_id, "COF-001", 98)
    return cart_id


@pytest.fixture
def checked_out_cart(open_cart: str) -> str:
    services.checkout(OWNER, open_cart)
    return open_cart


Send = Callable[[str], object]
ON_AN_OPEN_CART: list[tuple[str, Send, type[errors.CartError]]] = [
    ("unknown sku", lambda cart: services.add_to_cart(OWNER, cart, "NOPE-404", 1), errors.UnknownProductError),
    ("inactive sku", lambda cart: services.add_to_cart(OWNER, cart, "OLD-001", 1), errors.InactiveProductError),
    ("zero", lambda cart: services.add_to_cart(OWNER, cart, "KIT-001", 0), errors.InvalidQuantityError),
    ("negative", lambda cart: services.add_to_cart(OWNER, cart, "KIT-001", -1), errors.InvalidQuantityError),
    ("huge", lambda cart: services.add_to_cart(OWNER, cart, "KIT-001", 10**12), errors.InvalidQuantityError),
    ("float", lambda cart: services.add_to_cart(OWNER, cart, "KIT-001", 2.5), errors.InvalidQuantityError),  # type: ignore[arg-type]
    ("string", lambda cart: services.add_to_cart(OWNER, cart, "KIT-001", "3"), errors.InvalidQuantityError),  # type: ignore[arg-type]
    ("line over 99", lambda cart: services.add_to_cart(OWNER, cart, "COF-001", 2), errors.InvalidQuantityError),
    ("set to 100", lambda cart: services.update_quantity(OWNER, cart, "COF-001", 100), errors.InvalidQuantityError),
    ("set missing line", lambda cart: services.update_quantity(OWNER, cart, "KIT-001", 3), errors.ItemNotInCartError),
    ("remove missing line", lambda cart: services.remove_from_cart(OWNER, cart, "KIT-001"), errors.ItemNotInCartError),
    ("someone else's cart", lambda cart: services.add_to_cart(STRANGER, cart, "KIT-001", 1), errors.CartNotFoundError),
    ("start it again", lambda cart: services.start_cart(OWNER, cart), errors.CartAlreadyExistsError),
    (
        "stale If-Match",
        lambda cart: services.add_to_cart(
            Context(actor=Principal.parse("user:1"), expected_version=1), cart, "KIT-001", 1
        ),
        errors.StaleVersionError,
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("case", "send", "error"), ON_AN_OPEN_CART, ids=[case for case, _, _ in ON_AN_OPEN_CART])
def test_a_rejected_command_leaves_no_trace(open_cart: str, case: str, send: Send, error: type[Exception]) -> None:
    before = database_trace()
    with pytest.raises(error):
        send(open_cart)
    assert database_trace() == before


@pytest.mark.django_db
def test_a_command_on_an_unknown_cart_leaves_no_trace(catalog: None) -> None:
    before = database_trace()
    with pytest.raises(errors.CartNotFoundError):
        services.add_to_cart(OWNER, str(uuid4()), "COF-001", 1)
    assert database_trace() == before


@pytest.mark.django_db
def test_checking_out_an_empty_cart_leaves_no_trace(catalog: None) -> None:
    cart_id = str(uuid4())
    services.start_cart(OWNER, cart_id)
    before = database_trace()
    with pytest.raises(errors.EmptyCartError):
        services.checkout(OWNER, cart_id)
    assert database_trace() == before


@pytest.mark.django_db
@pytest.mark.parametrize("send", ["add", "update", "remove", "checkout"])
def test_a_checked_out_cart_refuses_every_change_and_keeps_its_log(checked_out_cart: str, send: str) -> None:
    before = database_trace()
    commands: dict[str, Send] = {
        "add": lambda cart: services.add_to_cart(OWNER, cart, "KIT-001", 1),
        "update": lambda cart: services.update_quantity(OWNER, cart, "COF-001", 1),
        "remove": lambda cart: services.remove_from_cart(OWNER, cart, "COF-001"),
        "checkout": lambda cart: services.checkout(OWNER, cart),
    }
    with pytest.raises(errors.CartCheckedOutError):
        commands[send](checked_out_cart)
    assert database_trace() == before


@pytest.mark.django_db
def test_a_rejected_command_with_an_idempotency_key_does_not_burn_the_key(open_cart: str) -> None:
    keyed = Context(actor=Principal.parse("user:1"), idempotency_key="k-reject")
    before = database_trace()
    with pytest.raises(errors.InvalidQuantityError):
        services.add_to_cart(keyed, open_cart, "KIT-001", 0)
    assert database_trace() == before
    outcome = services.add_to_cart(keyed, open_cart, "KIT-001", 1)  # same key, a valid request: runs
    assert not outcome.replayed and outcome.state.line("KIT-001") is not None
