"""`rebuild_projection cart_view --verify` holds the shop's appends only while it compares rows.

Its report names the stream behind every row that differs, with every event
of it. Those streams were read inside the comparing transaction, which holds
every append of the shop off (SLOW_LOCK, ADR 0005): with 43,035 rows
differing on a log of 330,000 events the shop answered nothing for 75 s.
Here a second shopper's command runs while --verify reads its first stream,
and must not wait for it.
"""

import random
import threading

import pytest
from django.db import connection

from carts.handler import Context
from kernel.principal import Principal
from projections import cart_view
from rebuilds import service

from .rebuild_support import session, shop, skus

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

STREAM_READ = "FROM eventlog_event WHERE stream_id = %s"


def another_shopper_adds_to_a_cart(within: float) -> bool:
    """A real command on a connection of its own: True if it committed within `within` seconds."""

    def command() -> None:
        try:
            session(random.Random(7), skus(), Context(actor=Principal.parse("user:other")))
        finally:
            connection.close()

    shopper = threading.Thread(target=command)
    shopper.start()
    shopper.join(timeout=within)
    done = not shopper.is_alive()
    if not done:
        waiting.append(shopper)  # it goes on once --verify's transaction ends
    return done


waiting: list[threading.Thread] = []


def test_a_command_does_not_wait_while_verify_reads_the_streams_behind_its_report(seeded_catalog: None) -> None:
    carts = shop(5, seed=3)
    with connection.cursor() as cursor:  # the view as a buggy version wrote it: one unit too many everywhere
        cursor.execute(f"UPDATE {cart_view.TABLE} SET item_count = item_count + 1")
    answered: list[bool] = []

    def at_the_first_stream_read(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if STREAM_READ in sql and not answered:
            answered.append(another_shopper_adds_to_a_cart(within=10.0))
        return execute(sql, params, many, context)

    try:
        with connection.execute_wrapper(at_the_first_stream_read):
            outcome = service.rebuild("cart_view", verify=True)
    finally:
        for shopper in waiting:
            shopper.join(timeout=30)

    assert answered == [True]
    assert sorted(d.key for d in outcome.differences) == sorted(carts)
    assert {column for d in outcome.differences for column in d.fields} == {"item_count"}
    assert all(d.streams == {f"cart-{d.key}": d.streams[f"cart-{d.key}"]} for d in outcome.differences)
    assert all(d.streams[f"cart-{d.key}"][0].type == "CartStarted" for d in outcome.differences)
