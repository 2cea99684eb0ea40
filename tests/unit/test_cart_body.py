"""The cart document the API answers with (carts/document.py: cart_document, through
api/cart_serializers.py: cart_body) is written by hand for speed; it must stay exactly what its
schema, the DRF serializer `CartOutput`, would write."""

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings

from api import cart_serializers
from api.cart_serializers import CartOutput, cart_body
from carts.decider import CartState, CartStatus, Line
from tests.unit.test_decider_properties import run, sequences


@pytest.fixture(autouse=True)
def _names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cart_serializers, "product_names", lambda skus: {sku: f"Name of {sku}" for sku in skus})


def as_json(document: object) -> object:
    return json.loads(json.dumps(document))


def test_a_cart_reads_as_written_by_hand() -> None:
    state = CartState(
        cart_id="c1", status=CartStatus.CHECKED_OUT, owner="user:1", version=7, order_id="o-9",
        lines=(
            Line(sku="COF-001", quantity=3, unit_price=Decimal("12.5")),
            Line(sku="KIT-001", quantity=1, unit_price=Decimal("24")),
        ),
        discount=Decimal("6.15"), coupon="TENOFF",
    )  # fmt: skip
    assert as_json(cart_body(state)) == {
        "id": "c1",
        "status": "checked_out",
        "items": [
            {"sku": "COF-001", "name": "Name of COF-001", "quantity": 3, "unit_price": "12.50", "line_total": "37.50"},
            {"sku": "KIT-001", "name": "Name of KIT-001", "quantity": 1, "unit_price": "24.00", "line_total": "24.00"},
        ],
        "subtotal": "61.50",
        "discount": "6.15",
        "total": "55.35",
        "coupon": "TENOFF",
        "order_id": "o-9",
        "version": 7,
    }


@settings(max_examples=200)
@given(sequences)
def test_every_cart_reads_as_its_serializer_would_write_it(sequence: list) -> None:
    state, _ = run(sequence)
    assert as_json(cart_body(state)) == as_json(CartOutput(cart_body(state)).data)
