"""A process decides a command on the cart as it last wrote it (carts/last_written.py), and
its append proves that guess: two handlers on one store stand for two processes."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from carts import commands as c
from carts import errors
from carts.decider import CartState, CartStatus, Line
from carts.handler import CATCH_UP, CommandHandler, Context, fold_missed
from carts.idempotency import MemoryProcessedCommands
from carts.last_written import LastWritten
from carts.streams import stream_id
from catalog.snapshot import ProductSnapshot
from eventlog.records import NewEvent
from eventlog.stores import MemoryStore
from kernel.principal import Principal

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
ALICE = Context(actor=Principal.user(1))
BEANS = ProductSnapshot(sku="COF-001", price=Decimal("12.50"), active=True)
DRIPPER = ProductSnapshot(sku="KIT-001", price=Decimal("24.00"), active=True)


def cart(cart_id: str, version: int) -> CartState:
    return CartState(cart_id=cart_id, status=CartStatus.OPEN, owner="user:1", version=version)


def process(store: MemoryStore) -> CommandHandler:
    return CommandHandler(
        store=store,
        processed=MemoryProcessedCommands(store),
        project=lambda state, events: [],
        max_attempts=3,
        last_written=LastWritten(),
    )


def add(product: ProductSnapshot, quantity: int = 1) -> c.AddToCart:
    return c.AddToCart(cart_id="c1", at=NOW, sku=product.sku, quantity=quantity, product=product)


class CountingStore(MemoryStore):
    """Counts reads of a stream and appends, the database's two round trips (what a failed
    append misses comes back with it: not a read)."""

    reads = appends = 0
    appending = False

    def read_stream(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.reads += not self.appending
        return super().read_stream(*args, **kwargs)

    def append(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.appends += 1
        self.appending = True
        try:
            return super().append(*args, **kwargs)
        finally:
            self.appending = False


@pytest.fixture
def store() -> CountingStore:
    return CountingStore()


def test_the_lru_keeps_the_newest_carts_and_drops_the_least_recently_used() -> None:
    remembered = LastWritten(size=2)
    remembered.remember(cart("a", 1))
    remembered.remember(cart("b", 1))
    assert remembered.get("a") == cart("a", 1)  # a is now the most recently used
    remembered.remember(cart("c", 1))
    assert [remembered.get(k) for k in "abc"] == [cart("a", 1), None, cart("c", 1)]


def test_an_older_state_never_replaces_a_newer_one_of_the_same_cart() -> None:
    remembered = LastWritten()
    remembered.remember(cart("a", 5))
    remembered.remember(cart("a", 4))  # another thread of the process, done later with an older one
    assert remembered.get("a") == cart("a", 5)
    remembered.forget("a")
    assert remembered.get("a") is None


def test_size_zero_remembers_nothing() -> None:
    remembered = LastWritten(size=0)
    remembered.remember(cart("a", 1))
    assert remembered.get("a") is None


def test_missed_events_that_follow_the_state_are_folded_in(store: CountingStore) -> None:
    process(store).handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), ALICE)
    [missed] = process(store).handle(add(BEANS, 2), ALICE).events
    caught = fold_missed(cart("c1", 1), [missed])
    assert caught is not None and caught.version == 2
    assert caught.lines == (Line(sku="COF-001", quantity=2, unit_price=Decimal("12.50")),)


def test_missed_events_that_are_none_a_gap_or_maybe_not_all_are_not_caught_up(store: CountingStore) -> None:
    process(store).handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), ALICE)
    [two] = process(store).handle(add(BEANS), ALICE).events
    assert fold_missed(cart("c1", 1), None) is None  # not known
    assert fold_missed(cart("c1", 1), []) is None  # the stream is behind the state (a restore)
    assert fold_missed(cart("c1", 0), [two]) is None  # version 1 is missing
    assert fold_missed(cart("c1", 1), [two] * CATCH_UP) is None  # a full batch: there may be more


def test_the_process_that_wrote_a_cart_last_does_not_read_it(store: CountingStore) -> None:
    mine = process(store)
    mine.handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), ALICE)
    mine.handle(add(BEANS), ALICE)
    assert (store.reads, store.appends) == (0, 2)
    assert mine.handle(add(BEANS, 2), ALICE).state.line("COF-001").quantity == 3  # type: ignore[union-attr]
    assert (store.reads, store.appends) == (0, 3)


def test_a_cart_another_process_wrote_is_caught_up_from_the_failed_append(store: CountingStore) -> None:
    mine, theirs = process(store), process(store)
    mine.handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), ALICE)
    theirs.handle(add(DRIPPER), ALICE)  # theirs reads (it has no guess); mine does not hear of it
    reads = store.reads
    outcome = mine.handle(add(BEANS), ALICE)
    assert store.reads == reads  # the failed append brought back event 2: no read
    assert outcome.state.version == 3 and [line.sku for line in outcome.state.lines] == ["KIT-001", "COF-001"]
    assert [e.type for e in store.read_stream(stream_id("c1"))] == ["CartStarted", "ItemAdded", "ItemAdded"]


def test_a_refusal_on_a_guess_is_checked_against_the_log(store: CountingStore) -> None:
    mine, theirs = process(store), process(store)
    mine.handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), ALICE)
    theirs.handle(add(DRIPPER), ALICE)
    removed = mine.handle(c.RemoveFromCart(cart_id="c1", at=NOW, sku="KIT-001"), ALICE)  # not there, by the guess
    assert removed.state.lines == () and removed.state.version == 3
    with pytest.raises(errors.ItemNotInCartError):
        mine.handle(c.RemoveFromCart(cart_id="c1", at=NOW, sku="KIT-001"), ALICE)  # and now really not


def test_a_cart_far_ahead_of_the_guess_is_read_from_the_log(store: CountingStore) -> None:
    mine = process(store)
    mine.handle(c.StartCart(cart_id="c1", at=NOW, owner="user:1"), ALICE)
    ahead = [NewEvent(type="ItemAdded", data={"sku": "COF-001", "quantity": 1, "unit_price": "12.50"}, occurred_at=NOW)]
    for version in range(1, CATCH_UP + 1):  # another writer adds CATCH_UP events
        store.append(stream_id("c1"), version, ahead)
    outcome = mine.handle(add(BEANS), ALICE)
    assert outcome.state.version == CATCH_UP + 2
    assert outcome.state.line("COF-001").quantity == CATCH_UP + 1  # type: ignore[union-attr]
