"""The abandoned-cart rule on its own (projections/abandonment.py): no database, times by hand."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from projections.abandonment import Activity, Rule, Watch, fold, is_abandoned, observe

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
RULE = Rule(after=timedelta(minutes=30), lateness=timedelta(minutes=5))


def at(m: int) -> datetime:
    return T0 + timedelta(minutes=m)


def added(m: int, sku: str = "COF-001", quantity: int = 1, price: str = "10.00") -> Activity:
    return Activity(type="ItemAdded", occurred_at=at(m), sku=sku, quantity=quantity, unit_price=Decimal(price))


def test_a_cart_quiet_for_the_whole_period_before_the_watermark_is_abandoned() -> None:
    cart = fold([Activity(type="CartStarted", occurred_at=at(0)), added(1, quantity=2)], RULE)

    assert cart.value == Decimal("20.00") and cart.last_activity_at == at(1)
    assert not is_abandoned(cart, at(30), RULE)  # quiet 29 minutes
    assert is_abandoned(cart, at(31), RULE)  # quiet 30 minutes


def test_the_watermark_trails_the_latest_event_time_by_the_lateness() -> None:
    assert RULE.watermark(at(40)) == at(35)
    assert RULE.watermark(None) is None


def test_an_empty_or_checked_out_cart_is_never_abandoned() -> None:
    emptied = fold([added(0), Activity(type="ItemRemoved", occurred_at=at(1), sku="COF-001")], RULE)
    checked_out = fold([added(0), Activity(type="CheckedOut", occurred_at=at(1))], RULE)

    assert not is_abandoned(emptied, at(500), RULE)
    assert not is_abandoned(checked_out, at(500), RULE)


def test_coming_back_after_the_quiet_period_counts_as_a_recovery_and_a_shorter_pause_does_not() -> None:
    cart = fold([added(0), added(29), added(59)], RULE)  # pauses of 29 and 30 minutes

    assert cart.recoveries == 1


def test_a_straggler_older_than_the_last_activity_does_not_move_it_back() -> None:
    cart = fold([added(0), added(40), added(10)], RULE)

    assert cart.last_activity_at == at(40)


def test_lines_follow_the_carts_own_arithmetic() -> None:
    cart = fold(
        [
            added(0, "COF-001", 2, "10.00"),
            added(1, "COF-001", 1, "12.00"),  # the whole line is now at the latest add's price
            added(2, "TEA-001", 1, "5.50"),
            Activity(type="ItemQuantityChanged", occurred_at=at(3), sku="TEA-001", to_quantity=4),
            added(4, "KIT-001", 1, "24.00"),
            Activity(type="ItemRemoved", occurred_at=at(5), sku="KIT-001"),
        ],
        RULE,
    )

    # 3 x 12.00 + 4 x 5.50
    assert cart.item_count == 7 and cart.value == Decimal("58.00")


def test_observing_never_changes_the_watch_it_was_given() -> None:
    before = Watch()
    observe(before, added(0), RULE)

    assert before == Watch()
