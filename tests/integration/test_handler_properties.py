"""The decider's properties again, now through carts.services against the database.

Random command sequences (the strategies of tests/unit/test_decider_properties.py)
go through the real handler: a rejected command raises and leaves the event
table and the cart_view row untouched, no line leaves 1..99, and folding the
stored stream always equals the inline cart_view row (invariants 4, 6, 8).
"""

from typing import Any
from uuid import uuid4

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carts import errors, services
from carts.decider import MAX_LINE_QUANTITY, CartState
from carts.handler import Context, load
from kernel.principal import Principal
from projections import cart_view
from tests.unit.test_decider_properties import Op, ops

OWNER = Context(actor=Principal.parse("user:1"))


def log_fingerprint() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), COALESCE(MAX(position), 0) FROM eventlog_event")
        count, head = cursor.fetchone()
        return int(count), int(head)


def view_row(cart_id: str) -> dict[str, Any] | None:
    found = cart_view.read(cart_id)
    return None if found is None else found[1]


def send(op: Op, cart_id: str) -> None:
    quantity: int = op.quantity  # type: ignore[assignment]  # invalid types on purpose
    if op.kind == "add":
        services.add_to_cart(OWNER, cart_id, op.sku, quantity)
    elif op.kind == "update":
        services.update_quantity(OWNER, cart_id, op.sku, quantity)
    elif op.kind == "remove":
        services.remove_from_cart(OWNER, cart_id, op.sku)
    elif op.kind == "checkout":
        services.checkout(OWNER, cart_id)
    else:  # an op added to `ops` without a call here must fail loudly, not become a checkout
        raise AssertionError(f"no call for op {op.kind!r}")


def view_state(cart_id: str) -> CartState:
    found = cart_view.read(cart_id)
    assert found is not None, f"cart_view has no row for {cart_id}"
    return found[0]


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=st.lists(ops, max_size=15))
def test_random_commands_through_the_handler_keep_the_log_and_the_view_in_step(
    catalog: None, sequence: list[Op]
) -> None:
    cart_id = str(uuid4())  # a fresh cart per example: examples share the test's transaction
    services.start_cart(OWNER, cart_id)
    for op in sequence:
        before_log, before_view = log_fingerprint(), view_row(cart_id)
        try:
            send(op, cart_id)
        except errors.CartError:
            assert log_fingerprint() == before_log, f"rejected {op} appended"
            assert view_row(cart_id) == before_view, f"rejected {op} changed cart_view"
            continue
        folded = load(cart_id)
        assert all(1 <= line.quantity <= MAX_LINE_QUANTITY for line in folded.lines)
        assert view_state(cart_id) == folded
    assert view_state(cart_id) == load(cart_id)
