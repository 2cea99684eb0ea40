"""The shopper plan: pure, seeded, legal for the cart's own decider, and carrying the planted pattern."""

from datetime import date, timedelta
from decimal import Decimal

import pytest

from carts.decider import decide, fold, initial_state
from catalog.snapshot import ProductSnapshot
from simulator.plan import PlanSettings, carts_per_day, default_associations, interleave, plan_days
from simulator.run_bulk import command_for
from simulator.shopper import Association, Session

SKUS = (*(f"SKU-{n:03d}" for n in range(30)), "BOK-001", "BOK-006", "KIT-001", "KIT-002")


def plan(carts: int = 400, seed: int = 1, associations: tuple[Association, ...] | None = None) -> list[Session]:
    settings = PlanSettings(
        carts=carts, seed=seed, days=7, start=date(2026, 2, 2), skus=SKUS, coupons=(("SAVE5", 5),),
        associations=default_associations() if associations is None else associations,
    )  # fmt: skip
    return [session for _, sessions in plan_days(settings) for session in sessions]


def test_the_same_seed_plans_the_same_sessions_and_another_seed_does_not() -> None:
    assert plan(seed=5) == plan(seed=5)
    assert plan(seed=5) != plan(seed=6)


def test_every_cart_is_planned_once_and_weekends_are_busier() -> None:
    settings = PlanSettings(carts=1000, seed=1, days=7, start=date(2026, 2, 2), skus=SKUS)  # a Monday
    counts = carts_per_day(settings)
    assert sum(counts) == 1000
    assert min(counts[5:]) > max(counts[:5])
    assert sorted(s.number for s in plan(carts=1000)) == list(range(1000))


def test_sessions_start_on_their_day_and_move_forward_in_time() -> None:
    for session in plan():
        times = [action.at for action in session.actions]
        assert times == sorted(times)
        assert date(2026, 2, 2) <= times[0].date() < date(2026, 2, 2) + timedelta(days=7)


def test_every_planned_command_is_accepted_by_the_cart_decider() -> None:
    products = {sku: ProductSnapshot(sku=sku, price=Decimal("3.00"), active=True) for sku in SKUS}
    for session in plan():
        state = initial_state(f"cart-{session.number}")
        for action in session.actions:
            state = fold(state, decide(state, command_for(state.cart_id, session.owner, action, products)))


def test_the_session_mix_has_every_behaviour() -> None:
    kinds = [action.kind for session in plan(carts=2000) for action in session.actions]
    for kind in ("start", "add", "update", "remove", "checkout"):
        assert kind in kinds
    checkouts, starts = kinds.count("checkout"), kinds.count("start")
    assert 0.2 < checkouts / starts < 0.5  # most carts are abandoned
    assert any(a.coupon for s in plan(carts=2000) for a in s.actions if a.kind == "checkout")


def test_buyers_of_the_planted_product_also_buy_its_partner_at_the_planted_rate() -> None:
    bought = [_checked_out(session) for session in plan(carts=6000)]
    with_book = [skus for skus in bought if "BOK-001" in skus]
    rate = sum("BOK-006" in skus for skus in with_book) / len(with_book)
    assert len(with_book) > 100
    assert 0.62 < rate < 0.78


def test_a_configured_association_replaces_the_defaults() -> None:
    always = (Association(sku="SKU-000", also="SKU-001", probability=1.0),)
    sessions = plan(associations=always)
    for session in sessions:
        added = [a.sku for a in session.actions if a.kind == "add"]
        if "SKU-000" in added:
            assert "SKU-001" in added


def test_interleaving_orders_every_action_of_a_day_by_time() -> None:
    sessions = plan(carts=50)
    merged = [action.at for _, action in interleave(sessions)]
    assert merged == sorted(merged)
    assert len(merged) == sum(len(s.actions) for s in sessions)


@pytest.mark.parametrize("text", ["A:B", "A:B:0.5:1", "A:A:0.5", "A:B:1.5", "A:B:x"])
def test_a_malformed_association_is_refused_with_the_shape_it_wants(text: str) -> None:
    # "A:B" said "not enough values to unpack (expected 3, got 2)" on the command line.
    with pytest.raises(ValueError, match="want SKU_A:SKU_B:p with two different SKUs and 0 <= p <= 1"):
        Association.parse(text)


def _checked_out(session: Session) -> set[str]:
    if session.actions[-1].kind != "checkout":
        return set()
    lines: set[str] = set()
    for action in session.actions:
        if action.kind == "add":
            lines.add(action.sku)
        elif action.kind == "remove":
            lines.discard(action.sku)
    return lines
