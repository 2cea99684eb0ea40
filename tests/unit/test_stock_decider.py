"""The stock rules on their own (inventory/decider.py): no database, numbers by hand."""

from datetime import UTC, datetime, timedelta

import pytest

from inventory import commands as c
from inventory import events as e
from inventory.decider import StockState, decide, fold, initial_state
from inventory.errors import InvalidStockError, OutOfStockError, ReservationLostError

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
LATER = T0 + timedelta(minutes=5)


def stocked(*events: e.StockEvent) -> StockState:
    return fold(initial_state("TEA-003"), events)


def reserve(reservation: str, quantity: int, expires_at: datetime = LATER) -> c.Reserve:
    return c.Reserve(sku="TEA-003", at=T0, reservation=reservation, quantity=quantity, expires_at=expires_at)


RECEIVED_5 = e.StockReceived(sku="TEA-003", quantity=5)


def test_a_product_without_stock_events_is_not_tracked() -> None:
    assert (stocked().tracked, stocked(RECEIVED_5).tracked) == (False, True)


def test_received_adjusted_reserved_and_confirmed_units_add_up() -> None:
    state = stocked(
        RECEIVED_5,
        e.StockAdjusted(sku="TEA-003", by=-1, reason="a broken box"),
        e.StockReserved(sku="TEA-003", reservation="a", quantity=2, expires_at=LATER),
        e.StockReserved(sku="TEA-003", reservation="b", quantity=1, expires_at=LATER),
        e.ReservationConfirmed(sku="TEA-003", reservation="a", quantity=2, order_id="o1"),
    )
    assert (state.on_hand, state.reserved, state.available) == (2, 1, 1)


def test_a_reservation_within_what_is_available_is_recorded() -> None:
    assert decide(stocked(RECEIVED_5), reserve("a", 5)) == [
        e.StockReserved(sku="TEA-003", reservation="a", quantity=5, expires_at=LATER)
    ]


def test_a_reservation_beyond_what_is_available_names_the_sku_and_the_units_left() -> None:
    state = stocked(RECEIVED_5, e.StockReserved(sku="TEA-003", reservation="a", quantity=4, expires_at=LATER))
    with pytest.raises(OutOfStockError, match="Only 1 of TEA-003 left; your cart asks for 2") as refused:
        decide(state, reserve("b", 2))
    assert (refused.value.sku, refused.value.available, refused.value.title) == ("TEA-003", 1, "Out of stock")


def test_reserving_again_under_the_same_id_appends_nothing() -> None:
    state = stocked(RECEIVED_5, e.StockReserved(sku="TEA-003", reservation="a", quantity=2, expires_at=LATER))
    assert decide(state, reserve("a", 2)) == []


def test_releasing_twice_or_after_a_confirmation_gives_nothing_back_twice() -> None:
    state = stocked(RECEIVED_5, e.StockReserved(sku="TEA-003", reservation="a", quantity=2, expires_at=LATER))
    release = c.Release(sku="TEA-003", at=T0, reservation="a", reason="checkout failed")
    released = decide(state, release)
    assert released == [e.ReservationReleased(sku="TEA-003", reservation="a", quantity=2, reason="checkout failed")]
    assert decide(fold(state, released), release) == []
    confirmed = fold(state, [e.ReservationConfirmed(sku="TEA-003", reservation="a", quantity=2, order_id="o1")])
    assert decide(confirmed, release) == []


def test_confirming_a_released_reservation_is_refused() -> None:
    state = stocked(
        RECEIVED_5,
        e.StockReserved(sku="TEA-003", reservation="a", quantity=2, expires_at=LATER),
        e.ReservationReleased(sku="TEA-003", reservation="a", quantity=2, reason="expired"),
    )
    with pytest.raises(ReservationLostError):
        decide(state, c.Confirm(sku="TEA-003", at=T0, reservation="a", order_id="o1"))


def test_the_sweep_releases_only_the_reservations_whose_time_ran_out() -> None:
    state = stocked(
        RECEIVED_5,
        e.StockReserved(sku="TEA-003", reservation="old", quantity=1, expires_at=T0 + timedelta(minutes=1)),
        e.StockReserved(sku="TEA-003", reservation="new", quantity=2, expires_at=T0 + timedelta(minutes=9)),
    )
    assert decide(state, c.ReleaseExpired(sku="TEA-003", at=T0 + timedelta(minutes=1))) == [
        e.ReservationReleased(sku="TEA-003", reservation="old", quantity=1, reason="expired")
    ]


@pytest.mark.parametrize(
    ("command", "field"),
    [
        (c.ReceiveStock(sku="TEA-003", at=T0, quantity=0), "quantity"),
        (c.AdjustStock(sku="TEA-003", at=T0, by=0, reason="count"), "by"),
        (c.AdjustStock(sku="TEA-003", at=T0, by=-1, reason=" "), "reason"),
        (c.AdjustStock(sku="TEA-003", at=T0, by=-4, reason="count"), "by"),  # 5 on hand, 2 reserved
    ],
)
def test_invalid_changes_are_refused_on_their_field(command: c.StockCommand, field: str) -> None:
    state = stocked(RECEIVED_5, e.StockReserved(sku="TEA-003", reservation="a", quantity=2, expires_at=LATER))
    with pytest.raises(InvalidStockError) as refused:
        decide(state, command)
    assert refused.value.field == field
