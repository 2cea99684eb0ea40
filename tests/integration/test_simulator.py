"""The simulator writes through the real log: its streams fold to the cart_view rows, and a seed
reproduces the same events, whichever mode (commands or bulk) wrote them. Both backends."""

import json
import time
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count, Sum

from carts.decider import fold_recorded, initial_state
from eventlog import store
from eventlog.records import RecordedEvent
from projections import cart_view
from projections.models import CartView
from simulator.simulate import simulate

pytestmark = pytest.mark.django_db(transaction=True)

START = date(2026, 4, 6)


def streams(after: int, through: int) -> dict[str, list[RecordedEvent]]:
    """The cart streams a run wrote (the seeded catalog's product streams are not the simulator's)."""
    settle()
    by_stream: dict[str, list[RecordedEvent]] = defaultdict(list)
    for batch in store.iter_all(after, 5000):
        for event in batch:
            if event.position <= through and event.category == "cart":
                by_stream[event.stream_id].append(event)
    return by_stream


def settle(timeout: float = 10.0) -> None:
    """Wait until the gap-safe reader sees the log's head. On a PostgreSQL server shared with
    other work, any open transaction on it holds `read_all` back for a moment."""
    head, deadline = store.head_position(), time.monotonic() + timeout
    while head and not store.read_all(head - 1, 1) and time.monotonic() < deadline:
        time.sleep(0.02)


def run_of(after: int, through: int) -> list[tuple[Any, ...]]:
    """The carts a run wrote, without what may differ between runs (ids, order ids, recording time)."""
    return sorted(tuple(_comparable(e) for e in events) for events in streams(after, through).values())


def _comparable(e: RecordedEvent) -> tuple[Any, ...]:
    data = json.dumps({k: v for k, v in e.data.items() if k != "order_id"}, sort_keys=True)
    return (e.version, e.type, data, e.occurred_at, e.metadata["actor"], e.metadata["command"])


def test_a_seed_gives_the_same_events_in_command_and_bulk_mode(seeded_catalog: None) -> None:
    commands = simulate(carts=40, seed=7, days=3, start=START)
    first = store.head_position()
    bulk = simulate(carts=40, seed=7, days=3, start=START, bulk=True)
    second = store.head_position()
    simulate(carts=40, seed=8, days=3, start=START, bulk=True)
    third = store.head_position()

    assert commands.rejected == bulk.rejected == 0
    assert commands.events == bulk.events > 40
    by_commands, by_bulk, other_seed = run_of(0, first), run_of(first, second), run_of(second, third)
    assert len(by_commands) == 40
    assert by_commands == by_bulk
    assert other_seed != by_commands


def test_every_simulated_cart_folds_to_its_cart_view_row(seeded_catalog: None) -> None:
    simulate(carts=25, seed=3, days=2, start=START)
    simulate(carts=25, seed=4, days=2, start=START, bulk=True)

    carts = streams(0, store.head_position())
    assert len(carts) == 50
    for stream_id, events in carts.items():
        cart_id = stream_id.removeprefix("cart-")
        folded = fold_recorded(initial_state(cart_id), events)
        row = cart_view.read(cart_id)
        assert row is not None
        assert row[0] == folded
        assert row[1]["last_position"] == events[-1].position


def test_events_happen_on_the_simulated_days_and_the_funnel_narrows(seeded_catalog: None) -> None:
    simulate(carts=120, seed=11, days=4, start=START, bulk=True)
    settle()
    events = [e for batch in store.iter_all(0, 5000) for e in batch if e.category == "cart"]
    first_day = datetime.combine(START, datetime.min.time(), tzinfo=UTC)
    assert all(first_day <= e.occurred_at < first_day + timedelta(days=5) for e in events)
    started = {e.stream_id for e in events if e.type == "CartStarted"}
    with_items = {e.stream_id for e in events if e.type == "ItemAdded"}
    checked_out = {e.stream_id for e in events if e.type == "CheckedOut"}
    assert len(started) == 120
    assert len(started) > len(with_items) > len(checked_out) > 0
    assert {e.type for e in events} >= {"ItemQuantityChanged", "ItemRemoved"}


def test_the_command_plants_the_association_it_is_given(seeded_catalog: None) -> None:
    out = StringIO()
    call_command(
        "simulate_shoppers", "--carts", "60", "--seed", "2", "--days", "2", "--bulk",
        "--association", "KIT-003:KIT-004:1.0", verbosity=0, stdout=out,
    )  # fmt: skip
    assert "simulated 60 carts" in out.getvalue()
    for events in streams(0, store.head_position()).values():
        added = [e.data["sku"] for e in events if e.type == "ItemAdded"]
        if "KIT-003" in added:
            assert "KIT-004" in added


def test_the_command_seeds_an_empty_catalog_and_refuses_unknown_skus(db: None) -> None:
    with pytest.raises(CommandError, match="NOPE-1"):
        call_command("simulate_shoppers", "--carts", "1", "--association", "NOPE-1:BOK-001:0.5", verbosity=0)
    call_command("simulate_shoppers", "--carts", "3", "--seed", "1", verbosity=0, stdout=StringIO())
    assert len(streams(0, store.head_position())) == 3


@pytest.mark.django_db(transaction=False)
def test_bulk_mode_inside_a_transaction_writes_in_that_transaction(seeded_catalog: None) -> None:
    result = simulate(carts=10, seed=5, days=1, start=START, bulk=True)
    # Read back in this (uncommitted) transaction: a writer thread's rows would not be here yet.
    views = CartView.objects.aggregate(carts=Count("cart_id"), events=Sum("version"))
    assert views == {"carts": 10, "events": result.events}
