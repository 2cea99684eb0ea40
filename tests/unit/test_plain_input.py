"""`api/cart_serializers.py: plain_add_item`, the AddToCart body checked without DRF's
serializer, accepts only what `AddItemInput` accepts, with the same validated data."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from api.cart_serializers import AddItemInput, plain_add_item

skus = st.one_of(
    st.sampled_from(["COF-001", " COF-001", "COF-001 ", "", " ", "a" * 40, "a" * 41, "x\x00y", "k\ud800", "tab\tsku"]),
    st.text(max_size=45),
    st.integers(),
    st.none(),
)
quantities = st.one_of(st.integers(), st.booleans(), st.floats(), st.text(max_size=3), st.none())
bodies = st.one_of(
    st.fixed_dictionaries({"sku": skus, "quantity": quantities}),
    st.fixed_dictionaries({"sku": skus}),
    st.fixed_dictionaries({"sku": skus, "quantity": quantities, "extra": st.integers()}),
    st.lists(st.integers(), max_size=2),
)


@given(bodies)
def test_the_plain_path_accepts_only_what_the_serializer_accepts_with_the_same_data(body: Any) -> None:
    plain = plain_add_item(body)
    if plain is not None:
        serializer = AddItemInput(data=body)
        assert serializer.is_valid(), serializer.errors
        assert plain == dict(serializer.validated_data)


def test_the_plain_cases() -> None:
    assert plain_add_item({"sku": "COF-001", "quantity": 2}) == {"sku": "COF-001", "quantity": 2}
    assert plain_add_item({"sku": "COF-001", "quantity": True}) is None  # a bool is not a quantity
    assert plain_add_item({"sku": " COF-001", "quantity": 2}) is None  # the serializer trims it
    assert plain_add_item({"sku": "COF-001", "quantity": "2"}) is None  # refused there, with its words
