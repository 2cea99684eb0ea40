"""Properties of the cart decider over random command sequences (hypothesis).

Whatever shoppers send — valid or not, in any order — no line ever holds fewer
than 1 or more than 99, a rejected command raises a CartError and changes
nothing, and replaying the events from the log's JSON gives the same cart.
The same sequences run against the database in tests/integration/test_handler_properties.py.
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from carts import commands as c
from carts import errors
from carts import events as e
from carts.decider import MAX_DISTINCT_SKUS, MAX_LINE_QUANTITY, CartState, decide, fold, initial_state
from eventlog import codec

NOW = datetime(2026, 1, 1, tzinfo=UTC)
# The same catalog as the `catalog` fixture in tests/conftest.py, plus a SKU it lacks.
CATALOG = {
    "COF-001": c.ProductSnapshot(sku="COF-001", price=Decimal("12.50"), active=True),
    "KIT-001": c.ProductSnapshot(sku="KIT-001", price=Decimal("24.00"), active=True),
    "OLD-001": c.ProductSnapshot(sku="OLD-001", price=Decimal("5.00"), active=False),
}
SKUS = [*CATALOG, "NOPE-404"]


@dataclass(frozen=True)
class Op:
    """One thing a shopper asks, before it becomes a command."""

    kind: str  # add | update | remove | checkout
    sku: str = ""
    quantity: object = None


quantities = st.one_of(
    st.integers(min_value=1, max_value=40),
    st.integers(min_value=-5, max_value=120),
    st.sampled_from([0, 1, 98, 99, 100, 10**9, -(10**9), True, 2.5, "3", None]),
)
ops = st.one_of(
    st.builds(Op, kind=st.just("add"), sku=st.sampled_from(SKUS), quantity=quantities),
    st.builds(Op, kind=st.just("add"), sku=st.sampled_from(SKUS), quantity=quantities),  # adds twice as often
    st.builds(Op, kind=st.just("update"), sku=st.sampled_from(SKUS), quantity=quantities),
    st.builds(Op, kind=st.just("remove"), sku=st.sampled_from(SKUS)),
    st.just(Op(kind="checkout")),
)
sequences = st.lists(ops, max_size=30)


def to_command(op: Op, cart_id: str = "c1") -> c.CartCommand:
    quantity: int = op.quantity  # type: ignore[assignment]  # invalid types on purpose
    if op.kind == "add":
        return c.AddToCart(cart_id=cart_id, at=NOW, sku=op.sku, quantity=quantity, product=CATALOG.get(op.sku))
    if op.kind == "update":
        return c.UpdateCartQuantity(cart_id=cart_id, at=NOW, sku=op.sku, quantity=quantity)
    if op.kind == "remove":
        return c.RemoveFromCart(cart_id=cart_id, at=NOW, sku=op.sku)
    if op.kind == "checkout":
        return c.Checkout(cart_id=cart_id, at=NOW, order_id="o1")
    # An op added to `ops` without a command here must fail loudly, not become a checkout.
    raise AssertionError(f"no command for op {op.kind!r}")


def assert_lines_within_bounds(state: CartState) -> None:
    assert all(1 <= line.quantity <= MAX_LINE_QUANTITY for line in state.lines), state.lines
    assert len({line.sku for line in state.lines}) == len(state.lines) <= MAX_DISTINCT_SKUS


def run(sequence: list[Op]) -> tuple[CartState, list[e.CartEvent]]:
    """Decide and fold each op in turn, checking the bounds after every step."""
    history: list[e.CartEvent] = [e.CartStarted(owner="user:1")]
    state = fold(initial_state("c1"), history)
    for op in sequence:
        try:
            new_events = decide(state, to_command(op))
        except errors.CartError:
            continue  # rejected: `state` and `history` stay exactly as they were
        state = fold(state, new_events)
        history += new_events
        assert_lines_within_bounds(state)
    return state, history


@settings(max_examples=1000)
@given(sequences)
def test_no_command_sequence_makes_a_line_below_1_or_above_99(sequence: list[Op]) -> None:
    run(sequence)


@settings(max_examples=500)
@given(sequences)
def test_a_rejected_command_raises_a_cart_error_and_decides_nothing(sequence: list[Op]) -> None:
    state, _ = run(sequence)
    for sku in SKUS:
        for op in (Op("add", sku, 100), Op("add", sku, 0), Op("update", sku, -1), Op("add", sku, "2")):
            try:
                decided = decide(state, to_command(op))
            except errors.CartError:
                continue
            raise AssertionError(f"{op} was accepted: {decided}")


@settings(max_examples=500)
@given(sequences)
def test_replaying_the_logged_events_gives_the_live_cart(sequence: list[Op]) -> None:
    live, history = run(sequence)
    from_log = [codec.decode_stored(*codec.encode(event)) for event in history]
    assert from_log == history
    assert fold(initial_state("c1"), [event for event in from_log if isinstance(event, e.CartEvent)]) == live
    assert live.version == len(history)


@settings(max_examples=300)
@given(sequences)
def test_a_checked_out_cart_accepts_nothing_more(sequence: list[Op]) -> None:
    state, _ = run(sequence)
    if state.status != "checked_out":
        return
    for op in (Op("add", "COF-001", 1), Op("remove", "COF-001"), Op("checkout")):
        try:
            decide(state, to_command(op))
        except errors.CartCheckedOutError:
            continue
        raise AssertionError(f"{op} changed a checked-out cart")
