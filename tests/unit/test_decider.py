"""The cart's rules, as pure functions: no database."""

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from carts import commands as c
from carts import errors
from carts import events as e
from carts.decider import CartState, decide, fold, initial_state

NOW = datetime(2026, 1, 1, tzinfo=UTC)
BEANS = c.ProductSnapshot(sku="COF-001", price=Decimal("12.50"), active=True)


def open_cart(*events: e.CartEvent) -> CartState:
    return fold(initial_state("c1"), [e.CartStarted(owner="user:1"), *events])


def add(quantity: object, product: c.ProductSnapshot | None = BEANS) -> c.AddToCart:
    return c.AddToCart(cart_id="c1", at=NOW, sku="COF-001", quantity=quantity, product=product)  # type: ignore[arg-type]


def test_adding_captures_the_price_of_that_moment() -> None:
    assert decide(open_cart(), add(2)) == [e.ItemAdded(sku="COF-001", quantity=2, unit_price=Decimal("12.50"))]


def test_adding_more_of_a_line_puts_the_whole_line_at_the_price_of_that_add() -> None:
    state = open_cart(
        e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("65.00")),
        e.ItemAdded(sku="TEA-001", quantity=2, unit_price=Decimal("5.50")),
    )
    cheaper = c.ProductSnapshot(sku="COF-001", price=Decimal("40.00"), active=True)

    [added] = decide(state, add(1, product=cheaper))
    after = fold(state, [added])

    assert added == e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("40.00"))
    assert [(line.sku, line.quantity, line.unit_price) for line in after.lines] == [
        ("COF-001", 2, Decimal("40.00")),
        ("TEA-001", 2, Decimal("5.50")),
    ]
    assert after.subtotal == Decimal("91.00")  # 2 x 40.00 + 2 x 5.50


def test_changing_a_quantity_keeps_the_lines_price() -> None:
    state = open_cart(e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("65.00")))

    after = fold(state, decide(state, c.UpdateCartQuantity(cart_id="c1", at=NOW, sku="COF-001", quantity=3)))

    assert after.subtotal == Decimal("195.00")


def test_a_checked_out_cart_shows_the_orders_lines() -> None:
    # A checkout written by an earlier fold that priced the line at its first add (65.00):
    # the cart shows what was ordered, not what today's fold makes of the adds before it.
    state = open_cart(
        e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("65.00")),
        e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("40.00")),
        e.CheckedOut(
            order_id="o1",
            lines=[{"sku": "COF-001", "quantity": 2, "unit_price": "65.00", "line_total": "130.00"}],
            subtotal=Decimal("130.00"),
            total=Decimal("130.00"),
        ),
    )

    assert [(line.sku, line.quantity, line.unit_price) for line in state.lines] == [("COF-001", 2, Decimal("65.00"))]
    assert (state.subtotal, state.total, state.version) == (Decimal("130.00"), Decimal("130.00"), 4)


@pytest.mark.parametrize("quantity", [0, -1, 100, 2.5, "3", True, None])
def test_errors_for_an_invalid_quantity_to_add(quantity: object) -> None:
    with pytest.raises(errors.InvalidQuantityError):
        decide(open_cart(), add(quantity))


def test_a_line_never_exceeds_99() -> None:
    state = open_cart(e.ItemAdded(sku="COF-001", quantity=90, unit_price=Decimal("1")))
    with pytest.raises(errors.InvalidQuantityError, match="at most 99"):
        decide(state, add(10))


def test_errors_for_an_unknown_or_inactive_product() -> None:
    with pytest.raises(errors.UnknownProductError):
        decide(open_cart(), add(1, product=None))
    with pytest.raises(errors.InactiveProductError):
        decide(open_cart(), add(1, product=c.ProductSnapshot(sku="COF-001", price=Decimal("1"), active=False)))


def test_at_most_50_distinct_skus() -> None:
    state = open_cart(*[e.ItemAdded(sku=f"S{i}", quantity=1, unit_price=Decimal("1")) for i in range(50)])
    with pytest.raises(errors.TooManyLinesError):
        decide(state, add(1))


def test_setting_quantity_to_zero_removes_the_line() -> None:
    state = open_cart(e.ItemAdded(sku="COF-001", quantity=3, unit_price=Decimal("1")))
    update = c.UpdateCartQuantity(cart_id="c1", at=NOW, sku="COF-001", quantity=0)
    assert decide(state, update) == [e.ItemRemoved(sku="COF-001")]


def test_adding_to_a_checked_out_cart_is_rejected() -> None:
    state = open_cart(e.ItemAdded(sku="COF-001", quantity=1, unit_price=Decimal("1")))
    state = fold(state, decide(state, c.Checkout(cart_id="c1", at=NOW, order_id="o1")))
    assert state.status == "checked_out"
    with pytest.raises(errors.CartCheckedOutError):
        decide(state, add(1))


def test_an_empty_cart_cannot_check_out() -> None:
    with pytest.raises(errors.EmptyCartError):
        decide(open_cart(), c.Checkout(cart_id="c1", at=NOW, order_id="o1"))


@pytest.mark.parametrize("percent", [0, 101, 150])
def test_a_discount_is_1_to_100_percent(percent: int) -> None:
    # Over 100 % the order's total would be negative; the checkout refuses such a coupon first.
    with pytest.raises(ValueError, match="1-100 %"):
        c.Discount(code="X", percent=percent)


def test_checkout_applies_the_discount_and_records_it() -> None:
    state = open_cart(e.ItemAdded(sku="COF-001", quantity=3, unit_price=Decimal("10.00")))
    [event] = decide(state, c.Checkout(cart_id="c1", at=NOW, order_id="o1", discount=c.Discount(code="X", percent=10)))
    assert isinstance(event, e.CheckedOut)
    assert (event.subtotal, event.discount, event.total, event.coupon) == (
        Decimal("30.00"), Decimal("3.00"), Decimal("27.00"), "X",
    )  # fmt: skip


def test_the_deciders_copy_is_dataclasses_replace() -> None:
    # evolve copies states and lines with a cheaper `_replace`; it must build what `replace` builds.
    from dataclasses import fields, replace

    from carts.decider import CartStatus, Line, _replace

    line = Line(sku="COF-001", quantity=2, unit_price=Decimal("12.50"))
    state = CartState(cart_id="c1", status=CartStatus.OPEN, owner="user:1", lines=(line,), version=3)
    changes: dict[str, Any] = {
        "cart_id": "c2", "status": CartStatus.CHECKED_OUT, "owner": "user:2", "lines": (), "version": 4,
        "order_id": "o1", "discount": Decimal("1.00"), "coupon": "TEN",
    }  # fmt: skip
    assert set(changes) == {f.name for f in fields(CartState)}
    for name, value in changes.items():
        copied = _replace(state, **{name: value})
        assert copied == replace(state, **{name: value}) and type(copied) is CartState
        assert copied.__dict__ == replace(state, **{name: value}).__dict__
    assert _replace(line, quantity=3) == replace(line, quantity=3)
    assert state.version == 3 and line.quantity == 2  # the originals are untouched
    with pytest.raises(AttributeError):
        _replace(state, owner="x").owner = "y"  # type: ignore[misc]  # still frozen


def test_every_command_but_start_cart_has_a_rule() -> None:
    """A command added to carts/commands.py without its rule in `_DECISIONS` would reach `decide` and
    fail there with a KeyError (a 500), not a refusal. The list is written out: a new command must be
    added here on purpose."""
    from carts.decider import _DECISIONS

    commands = {cls for cls in vars(c).values() if isinstance(cls, type) and issubclass(cls, c.CartCommand)}
    assert commands == {
        c.CartCommand, c.StartCart, c.AddToCart, c.UpdateCartQuantity, c.RemoveFromCart, c.ChangeCartOwner, c.Checkout
    }  # fmt: skip
    assert set(_DECISIONS) == commands - {c.CartCommand, c.StartCart}
