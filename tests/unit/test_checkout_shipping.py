"""A checkout's shipping details through the pure decider and the codec: the box passes through untouched."""

from datetime import UTC, datetime
from decimal import Decimal

from carts import commands as c
from carts import events as e
from carts.decider import decide, fold, initial_state
from eventlog import codec
from privacy import sealing

NOW = datetime(2026, 1, 1, tzinfo=UTC)
BEANS = c.ProductSnapshot(sku="COF-001", price=Decimal("12.50"), active=True)
BOX = sealing.seal({"name": "Ada", "email": "ada@example.org", "address": "London"}, bytes(32), "k1")


def checked_out(shipping: dict[str, object] | None) -> e.CheckedOut:
    state = fold(
        initial_state("c1"),
        [e.CartStarted(owner="user:1"), e.ItemAdded(sku="COF-001", quantity=2, unit_price=Decimal("12.50"))],
    )
    [event] = decide(state, c.Checkout(cart_id="c1", at=NOW, order_id="o1", shipping=shipping))
    assert isinstance(event, e.CheckedOut)
    return event


def test_checked_out_carries_the_sealed_box_of_the_command_as_it_is() -> None:
    assert checked_out(BOX).shipping == BOX


def test_a_checkout_without_shipping_details_carries_none() -> None:
    assert checked_out(None).shipping is None


def test_the_cart_state_keeps_no_shipping_details_so_the_cart_state_topic_sees_none() -> None:
    state = fold(initial_state("c1"), [e.CartStarted(owner="user:1"), checked_out(BOX)])
    assert "shipping" not in state.__dataclass_fields__ and BOX["ciphertext"] not in repr(state)


def test_checked_out_is_schema_version_2_and_stores_the_box_as_is() -> None:
    type_, version, data = codec.encode(checked_out(BOX))
    assert (type_, version, data["shipping"]) == ("CheckedOut", 2, BOX)
    assert codec.decode_stored(type_, version, data) == checked_out(BOX)


def test_a_version_1_checkout_is_upcast_with_no_shipping_details_and_its_total_as_subtotal() -> None:
    old = {"order_id": "o1", "lines": [], "total": "25.00"}
    assert codec.decode_stored("CheckedOut", 1, old) == e.CheckedOut(
        order_id="o1", lines=[], subtotal=Decimal("25.00"), discount=Decimal("0"), total=Decimal("25.00"),
        coupon=None, shipping=None,
    )  # fmt: skip
