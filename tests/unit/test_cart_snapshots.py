"""Snapshots of a cart (carts/snapshots.py): folding a snapshot and the events after it gives
exactly the cart that folding the whole stream gives, at any split, for any command sequence;
and the handler folds only what comes after the newest snapshot."""

import json
from datetime import UTC, datetime
from decimal import Decimal

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from carts import commands as c
from carts import snapshots
from carts.decider import CartState, CartStatus, Line, fold, fold_recorded, initial_state
from carts.handler import CommandHandler, Context
from carts.idempotency import MemoryProcessedCommands
from eventlog.records import RecordedEvent
from eventlog.stores.memory import MemoryStore
from kernel.principal import Principal
from tests.unit.test_decider_properties import run, sequences

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def through_json(state: CartState) -> CartState:
    """A snapshot as the database keeps it: JSON text, read back."""
    return snapshots.from_data(json.loads(json.dumps(snapshots.to_data(state))))


@settings(max_examples=300)
@given(sequences, st.integers(min_value=0, max_value=40))
def test_a_snapshot_and_the_events_after_it_fold_to_the_cart_the_whole_stream_folds_to(
    sequence: list, split: int
) -> None:
    live, history = run(sequence)
    at = min(split, len(history))
    snapshot = through_json(fold(initial_state("c1"), history[:at]))
    assert fold(snapshot, history[at:]) == live


def test_every_field_survives_the_round_trip() -> None:
    state = CartState(
        cart_id="c9",
        status=CartStatus.CHECKED_OUT,
        owner="user:7",
        lines=(
            Line(sku="COF-001", quantity=2, unit_price=Decimal("12.50")),
            Line(sku="KIT-001", quantity=1, unit_price=Decimal("24.00")),
        ),
        version=57,
        order_id="o-1",
        discount=Decimal("4.90"),
        coupon="ONCE20",
    )
    assert through_json(state) == state


def test_a_snapshot_is_due_each_time_a_command_passes_a_multiple_of_every() -> None:
    assert snapshots.EVERY == 50
    assert [snapshots.due(b, a) for b, a in [(48, 49), (49, 50), (50, 51), (99, 101), (0, 1)]] == [
        False,
        True,
        False,
        True,
        False,
    ]


class CountingStore(MemoryStore):
    """Counts the events each read of a stream returns."""

    def __init__(self) -> None:
        super().__init__()
        self.returned: list[int] = []

    def read_stream(
        self, stream_id: str, up_to_version: int | None = None, *, after_version: int = 0
    ) -> list[RecordedEvent]:
        events = super().read_stream(stream_id, up_to_version, after_version=after_version)
        self.returned.append(len(events))
        return events


def test_the_handler_folds_only_the_events_after_the_newest_snapshot() -> None:
    store, saved = CountingStore(), snapshots.MemorySnapshots()
    handler = CommandHandler(
        store=store, processed=MemoryProcessedCommands(store), project=lambda *_: [], max_attempts=3, snapshots=saved
    )
    alice = Context(actor=Principal.user(1))
    handler.handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), alice)
    product = c.ProductSnapshot(sku="COF-001", price=Decimal("12.50"), active=True)
    handler.handle(c.AddToCart(cart_id="c1", at=NOW, sku="COF-001", quantity=1, product=product), alice)
    for n in range(3, 121):  # versions 3..120: quantity 2, 3, 2, 3, ...
        handler.handle(c.UpdateCartQuantity(cart_id="c1", at=NOW, sku="COF-001", quantity=2 + n % 2), alice)
    saved_row = store.tables["carts_snapshot"]["c1"]
    assert snapshots.from_data(orjson.loads(saved_row["state"])).version == 100  # written at 50, replaced at 100
    store.returned.clear()
    state = handler.load("c1")
    assert (state.version, state.lines[0].quantity, store.returned) == (120, 2, [20])  # 101..120 only
    assert state == fold_recorded(initial_state("c1"), store.read_stream("cart-c1"))
    assert [len(handler.load("c1", up_to_version=7).lines), store.returned[-1]] == [1, 7]  # time travel: from 1
