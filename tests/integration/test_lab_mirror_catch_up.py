"""The fault lab's first look at a long log: its mirror of a view is caught up a batch a transaction.

The lab compares each async view with a mirror it folds from the log (lab/mirrors.py). Caught up
inside the one snapshot of the comparison, the mirror's writes held a transaction id from the first
batch to the last: tens of seconds on a long log, during which every gap-safe read of the server
(ADR 0002), this shop's consumers and relay among them, returned nothing newer. Seen by a helper
whose shop's lab looked at a long log while sign-ups on another database waited for their claims.
"""

import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from carts import services
from carts.handler import Context
from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.transports import TableTransport
from eventlog import store
from eventlog.records import RecordedEvent
from kernel.principal import Principal
from lab import mirrors
from projections import product_activity

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def add_one(context: Context) -> None:
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 1)


def test_catching_a_mirror_up_holds_no_reader_of_the_log_back(catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    context = Context(actor=Principal.parse("user:7"))
    for _ in range(6):
        add_one(context)
    carts = [event.position for event in store.read_all(0, 100, categories=["cart"])]
    assert len(carts) == 12  # the mirror takes three batches of 5 (positions go on from the tests before)
    runner.drain(ProjectionConsumer(product_activity), TableTransport())
    monkeypatch.setattr(mirrors, "BATCH", 5)

    seen: list[bool] = []  # per batch after the first: whether an append made meanwhile could be read
    apply = product_activity.apply

    def apply_and_look(events: Sequence[RecordedEvent], table: str = product_activity.TABLE, **kwargs: Any) -> None:
        if table == mirrors.mirror_name(product_activity) and events[0].position > carts[0]:
            seen.append(readable_from_another_session())
        apply(events, table, **kwargs)

    monkeypatch.setattr(product_activity, "apply", apply_and_look)
    position, differences = mirrors.differences(product_activity)  # type: ignore[arg-type]

    assert position == carts[-1]
    assert differences == []
    assert seen == [True, True]  # before: [False, False], the mirror's first batch held the horizon


def readable_from_another_session() -> bool:
    """Append in a thread (a connection of its own), then read the log gap-safe there, while the
    mirror's catch-up waits for it."""
    found: list[bool] = []

    def append_and_read() -> None:
        from django.db import connection

        try:
            head = store.head_position()
            add_one(Context(actor=Principal.parse("user:8")))
            # Another database's transaction on the server may hold the horizon a moment: not for 10 s.
            # The mirror's own transaction, before, held it until the look was over.
            deadline = time.monotonic() + 10
            while not store.read_all(head, 10) and time.monotonic() < deadline:
                time.sleep(0.05)
            found.append(bool(store.read_all(head, 10)))
        finally:
            connection.close()

    thread = threading.Thread(target=append_and_read)
    thread.start()
    thread.join(timeout=30)
    return found == [True]
