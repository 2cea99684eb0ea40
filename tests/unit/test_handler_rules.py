"""The cart handler's rules on the in-memory store: no database, milliseconds per test.

Retries after a conflict, If-Match, idempotency and the access check are the
handler's own; the decider's rules are tested in test_decider*.py, and the same
handler on PostgreSQL and SQLite in tests/integration/test_handler_*.py.
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from carts import commands as c
from carts import errors
from carts.decider import CartState
from carts.handler import CommandHandler, Context
from carts.idempotency import MemoryProcessedCommands
from carts.streams import stream_id
from catalog.snapshot import ProductSnapshot
from eventlog.alongside import LAST_POSITION, Row
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores import MemoryStore
from kernel.principal import Principal

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
ALICE, BOB = Principal.user(1), Principal.user(2)
BEANS = ProductSnapshot(sku="COF-001", price=Decimal("12.50"), active=True)


class RacingStore(MemoryStore):
    """The next `stale` reads of a stream miss its newest event, as if another writer
    had committed it just after the read: the append that follows then conflicts."""

    stale = 0

    def read_stream(
        self, stream_id: str, up_to_version: int | None = None, *, after_version: int = 0
    ) -> list[RecordedEvent]:
        events = super().read_stream(stream_id, up_to_version, after_version=after_version)
        if self.stale and events:
            self.stale -= 1
            return events[:-1]
        return events


def racing(stale: int) -> tuple[RacingStore, CommandHandler]:
    """A started cart c1, to which a rival wrote after our next `stale` reads."""
    store = RacingStore()
    handler = handler_on(store)
    handler.handle(c.StartCart(cart_id="c1", at=NOW, owner=str(ALICE)), Context(actor=ALICE))
    store.append(stream_id("c1"), 1, [NewEvent(type="ItemRemoved", data={"sku": "KIT-001"}, occurred_at=NOW)])
    store.stale = stale
    return store, handler


class Projected:
    """The inline projections' stand-in: remembers what it was given, and gives a row of a
    table `view` that the memory store writes with the append."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, list[str]]] = []

    def __call__(self, state: CartState, events: Sequence[NewEvent]) -> list[Row]:
        self.calls.append((state.version, [e.type for e in events]))
        values = {"cart_id": state.cart_id, "items": state.item_count, "position": LAST_POSITION}
        return [Row(table="view", key="cart_id", values=values, replace=True)]


def handler_on(store: MemoryStore, max_attempts: int = 3) -> CommandHandler:
    return CommandHandler(
        store=store, processed=MemoryProcessedCommands(store), project=Projected(), max_attempts=max_attempts
    )


def add(cart_id: str, quantity: int = 1) -> c.AddToCart:
    return c.AddToCart(cart_id=cart_id, at=NOW, sku="COF-001", quantity=quantity, product=BEANS)


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def handler(store: MemoryStore) -> CommandHandler:
    handler = handler_on(store)
    handler.handle(c.StartCart(cart_id="c1", at=NOW, owner=str(ALICE)), Context(actor=ALICE))
    return handler


def test_a_command_appends_its_events_with_the_rows_of_its_views_for_the_state_after(
    handler: CommandHandler, store: MemoryStore
) -> None:
    outcome = handler.handle(add("c1", 2), Context(actor=ALICE))
    assert [e.type for e in outcome.events] == ["ItemAdded"] and outcome.state.version == 2
    assert outcome.state.item_count == 2 and handler.load("c1") == outcome.state
    assert isinstance(handler.project, Projected)
    assert handler.project.calls[-1] == (2, ["ItemAdded"])
    assert store.tables["view"]["c1"] == {"cart_id": "c1", "items": 2, "position": 2}  # CartStarted was 1


def test_a_conflict_is_retried_on_a_fresh_read_of_the_stream() -> None:
    store, handler = racing(stale=2)
    outcome = handler.handle(add("c1"), Context(actor=ALICE))
    assert [e.type for e in store.read_stream(stream_id("c1"))] == ["CartStarted", "ItemRemoved", "ItemAdded"]
    assert outcome.state.version == 3 and outcome.state.item_count == 1


def test_conflicts_on_every_attempt_are_a_concurrency_conflict_and_append_nothing() -> None:
    store, handler = racing(stale=10)  # every read misses the rival's event, a failed append's own included
    with pytest.raises(errors.ConcurrencyConflictError):
        handler.handle(add("c1"), Context(actor=ALICE))
    assert store.stream_version(stream_id("c1")) == 2


def test_a_pinned_version_that_is_stale_is_refused(handler: CommandHandler) -> None:
    handler.handle(add("c1"), Context(actor=ALICE))
    with pytest.raises(errors.StaleVersionError):
        handler.handle(add("c1"), Context(actor=ALICE, expected_version=1))
    assert handler.load("c1").version == 2


def test_a_pinned_version_that_loses_a_race_is_stale_and_not_retried() -> None:
    store, handler = racing(stale=1)
    with pytest.raises(errors.StaleVersionError):
        handler.handle(add("c1"), Context(actor=ALICE, expected_version=1))
    assert store.stream_version(stream_id("c1")) == 2


def test_a_repeated_command_returns_the_first_outcome_and_appends_nothing(
    handler: CommandHandler, store: MemoryStore
) -> None:
    keyed = Context(actor=ALICE, idempotency_key="k1")
    first = handler.handle(add("c1", 2), keyed)
    head = store.head_position()
    handler.handle(add("c1", 1), Context(actor=ALICE))
    again = handler.handle(add("c1", 2), keyed)
    assert (first.replayed, again.replayed) == (False, True)
    assert again.state == first.state and again.events == []
    assert store.head_position() == head + 1  # only the unkeyed add


def test_the_same_key_for_a_different_request_is_refused_and_appends_nothing(
    handler: CommandHandler, store: MemoryStore
) -> None:
    handler.handle(add("c1", 2), Context(actor=ALICE, idempotency_key="k1"))
    head = store.head_position()
    with pytest.raises(errors.IdempotencyKeyReusedError):
        handler.handle(add("c1", 3), Context(actor=ALICE, idempotency_key="k1"))
    assert store.head_position() == head


def test_a_repeat_that_deciding_again_would_refuse_still_returns_the_first_outcome(
    handler: CommandHandler, store: MemoryStore
) -> None:
    keyed = Context(actor=ALICE, idempotency_key="k1")
    handler.handle(add("c1"), Context(actor=ALICE))
    first = handler.handle(c.RemoveFromCart(cart_id="c1", at=NOW, sku="COF-001"), keyed)
    head = store.head_position()
    again = handler.handle(c.RemoveFromCart(cart_id="c1", at=NOW, sku="COF-001"), keyed)  # no such line now
    assert again.replayed and again.state == first.state and store.head_position() == head


def test_a_repeat_of_a_command_that_changed_nothing_replays_it_after_another_change(
    handler: CommandHandler, store: MemoryStore
) -> None:
    keyed = Context(actor=ALICE, idempotency_key="set-3")
    handler.handle(add("c1", 3), Context(actor=ALICE))
    first = handler.handle(c.UpdateCartQuantity(cart_id="c1", at=NOW, sku="COF-001", quantity=3), keyed)
    handler.handle(c.UpdateCartQuantity(cart_id="c1", at=NOW, sku="COF-001", quantity=5), Context(actor=ALICE))
    head = store.head_position()
    again = handler.handle(c.UpdateCartQuantity(cart_id="c1", at=NOW, sku="COF-001", quantity=3), keyed)
    assert (first.events, again.replayed, again.state) == ([], True, first.state)
    assert store.head_position() == head and handler.load("c1").line("COF-001").quantity == 5  # type: ignore[union-attr]


def test_a_repeat_whose_write_finds_the_key_taken_appends_nothing_and_replays_the_first(store: MemoryStore) -> None:
    handler = handler_on(store)
    keyed = Context(actor=ALICE, idempotency_key="k1")
    first = handler.handle(c.StartCart(cart_id="c1", at=NOW, owner=str(ALICE)), keyed)
    again = handler.handle(c.StartCart(cart_id="c2", at=NOW, owner=str(ALICE)), keyed)  # a fresh id per send
    assert again.replayed and again.state == first.state
    assert store.head_position() == 1 and store.read_stream(stream_id("c2")) == []


def test_the_same_key_from_another_actor_is_another_command(handler: CommandHandler) -> None:
    handler.handle(c.StartCart(cart_id="c2", at=NOW, owner=str(BOB)), Context(actor=BOB))
    handler.handle(add("c1"), Context(actor=ALICE, idempotency_key="k1"))
    assert not handler.handle(add("c2"), Context(actor=BOB, idempotency_key="k1")).replayed


@pytest.mark.parametrize("cart_id", ["c1", "missing"])
def test_someone_elses_cart_is_answered_like_a_missing_one(handler: CommandHandler, cart_id: str) -> None:
    with pytest.raises(errors.CartNotFoundError) as refused:
        handler.handle(add(cart_id), Context(actor=BOB))
    assert refused.value.detail == "This cart does not exist."
    assert handler.load("c1").version == 1


def test_a_rejected_command_appends_and_projects_nothing(handler: CommandHandler, store: MemoryStore) -> None:
    head = store.head_position()
    with pytest.raises(errors.InvalidQuantityError):
        handler.handle(add("c1", 0), Context(actor=ALICE))
    assert store.head_position() == head
    assert isinstance(handler.project, Projected) and len(handler.project.calls) == 1  # the StartCart


def test_a_failing_projection_appends_nothing(store: MemoryStore) -> None:
    def broken(state: CartState, events: Sequence[NewEvent]) -> list[Row]:
        raise RuntimeError("view table gone")

    handler = CommandHandler(store=store, processed=MemoryProcessedCommands(store), project=broken, max_attempts=3)
    with pytest.raises(RuntimeError):
        handler.handle(c.StartCart(cart_id="c1", at=NOW, owner=str(ALICE)), Context(actor=ALICE))
    assert store.head_position() == 0
