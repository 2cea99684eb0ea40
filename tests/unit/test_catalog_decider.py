"""A product's rules, as pure functions: no database."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from catalog import commands as c
from catalog import events as e
from catalog.decider import ProductState, decide, fold, initial_state
from catalog.errors import InvalidProductError, ProductAlreadyListedError, ProductNotFoundError

NOW = datetime(2026, 1, 1, tzinfo=UTC)
LISTED = e.ProductListed(
    sku="COF-001", name="Beans", description="Light roast.", category="Coffee", price=Decimal("12.50")
)


def listed(*events: e.ProductEvent) -> ProductState:
    return fold(initial_state("COF-001"), [LISTED, *events])


def list_beans(**changes: object) -> c.ListProduct:
    fields: dict[str, object] = {
        "name": "Beans",
        "description": "Light roast.",
        "category": "Coffee",
        "price": Decimal("12.50"),
        **changes,
    }
    return c.ListProduct(sku="COF-001", at=NOW, **fields)  # type: ignore[arg-type]


def edit(**changes: object) -> c.EditProduct:
    return c.EditProduct(sku="COF-001", at=NOW, **changes)  # type: ignore[arg-type]


def test_listing_a_new_product_records_it_with_its_price() -> None:
    assert decide(initial_state("COF-001"), list_beans()) == [LISTED]


def test_listing_a_discontinued_product_lists_and_withdraws_it_at_once() -> None:
    assert decide(initial_state("COF-001"), list_beans(active=False)) == [LISTED, e.ProductWithdrawn(sku="COF-001")]


def test_listing_a_product_twice_is_refused() -> None:
    with pytest.raises(ProductAlreadyListedError):
        decide(listed(), list_beans())


@pytest.mark.parametrize("price", ["0", "-1", "12.505", "NaN"])
def test_errors_for_a_price_that_is_not_a_positive_amount_in_cents(price: str) -> None:
    with pytest.raises(InvalidProductError, match="positive amount"):
        decide(initial_state("COF-001"), list_beans(price=Decimal(price)))


def test_errors_for_a_blank_name() -> None:
    with pytest.raises(InvalidProductError) as refusal:
        decide(listed(), edit(name="  "))
    assert refusal.value.field == "name"


def test_editing_a_product_that_was_never_listed_is_refused() -> None:
    with pytest.raises(ProductNotFoundError):
        decide(initial_state("COF-001"), edit(price=Decimal("9.00")))


def test_a_new_price_is_a_price_change_from_the_old_one() -> None:
    assert decide(listed(), edit(price=Decimal("13"))) == [
        e.PriceChanged(sku="COF-001", from_price=Decimal("12.50"), to_price=Decimal("13.00"))
    ]


def test_saving_a_product_unchanged_records_nothing() -> None:
    unchanged = edit(name="Beans", description="Light roast.", category="Coffee", price=Decimal("12.5"), active=True)
    assert decide(listed(), unchanged) == []


def test_an_edit_of_every_field_records_one_event_per_kind_of_change_in_a_fixed_order() -> None:
    everything = edit(name="Beans 250g", category="Coffee & Tea", price=Decimal("11.00"), active=False)
    assert decide(listed(), everything) == [
        e.ProductDescribed(sku="COF-001", name="Beans 250g", description="Light roast."),
        e.ProductRecategorized(sku="COF-001", from_category="Coffee", to_category="Coffee & Tea"),
        e.PriceChanged(sku="COF-001", from_price=Decimal("12.50"), to_price=Decimal("11.00")),
        e.ProductWithdrawn(sku="COF-001"),
    ]


def test_a_withdrawn_product_is_relisted_by_making_it_active() -> None:
    assert decide(listed(e.ProductWithdrawn(sku="COF-001")), edit(active=True)) == [e.ProductRelisted(sku="COF-001")]


def test_the_state_is_the_events_folded_in_order() -> None:
    state = listed(
        e.PriceChanged(sku="COF-001", from_price=Decimal("12.50"), to_price=Decimal("13.00")),
        e.ProductRecategorized(sku="COF-001", from_category="Coffee", to_category="Pantry"),
        e.ProductWithdrawn(sku="COF-001"),
    )
    assert (state.listed, state.price, state.category, state.active) == (True, Decimal("13.00"), "Pantry", False)
