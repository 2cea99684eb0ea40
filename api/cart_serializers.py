"""Small input and output serializers for the cart endpoints (no logic here)."""

from typing import Any

from rest_framework import serializers

from carts import shipping
from carts.decider import CartState, CartStatus
from carts.document import cart_document
from catalog.queries import product_names


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer and nothing else: "3", 3.0 and true are refused, not coerced."""

    default_error_messages = {"invalid": "A whole number is required (a JSON integer, not a string or decimal)."}

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return int(data)


class StrictCharField(serializers.CharField):
    """A JSON string and nothing else: 5 is refused, not turned into "5"."""

    default_error_messages = {"invalid": "A string is required."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


SKU_MAX_LENGTH = 40


class AddItemInput(serializers.Serializer):
    sku = StrictCharField(max_length=SKU_MAX_LENGTH)
    quantity = StrictIntegerField()


def plain_add_item(data: object) -> dict[str, Any] | None:
    """AddItemInput's validated data for the plain case, without building the serializer
    (about 0.4 ms of an AddToCart request's CPU): exactly `sku`, a trimmed printable string
    of 1 to 40 characters, and `quantity`, a JSON integer. For anything else, None: the
    serializer decides, and words the errors. tests/unit/test_plain_input.py checks that the
    two agree on any input."""
    if type(data) is dict and data.keys() == {"sku", "quantity"}:
        sku, quantity = data["sku"], data["quantity"]
        if (
            type(sku) is str
            and 0 < len(sku) <= SKU_MAX_LENGTH
            and sku.isprintable()
            and sku == sku.strip()
            and type(quantity) is int
        ):
            return {"sku": sku, "quantity": quantity}
    return None


class QuantityInput(serializers.Serializer):
    quantity = StrictIntegerField()


class StrictEmailField(serializers.EmailField):
    """An email address as a JSON string (Django's validator, as the shop's form uses)."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class ShippingInput(serializers.Serializer):
    """Where the order goes: personal data, sealed before it reaches the log (docs/personal-data.md)."""

    name = StrictCharField(max_length=shipping.MAX_NAME)
    email = StrictEmailField(max_length=shipping.MAX_EMAIL)
    address = StrictCharField(max_length=shipping.MAX_ADDRESS)


class ShippingOutput(serializers.Serializer):
    """The shipping details as their owner sees them; each reads `[erased]` once the person is forgotten."""

    name = serializers.CharField()
    email = serializers.CharField()
    address = serializers.CharField()


class CheckoutInput(serializers.Serializer):
    coupon = StrictCharField(max_length=40, required=False, allow_null=True, allow_blank=True)
    shipping = ShippingInput(required=False, allow_null=True)


class CartItemOutput(serializers.Serializer):
    sku = serializers.CharField()
    name = serializers.CharField()
    quantity = serializers.IntegerField()
    unit_price = serializers.DecimalField(max_digits=10, decimal_places=2)
    line_total = serializers.DecimalField(max_digits=12, decimal_places=2)


class CartOutput(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=[CartStatus.OPEN.value, CartStatus.CHECKED_OUT.value])
    items = CartItemOutput(many=True)
    subtotal = serializers.DecimalField(max_digits=12, decimal_places=2)
    discount = serializers.DecimalField(max_digits=12, decimal_places=2)
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    coupon = serializers.CharField(allow_null=True)
    order_id = serializers.CharField(allow_null=True)
    version = serializers.IntegerField()


class OrderOutput(serializers.Serializer):
    order_id = serializers.CharField()
    subtotal = serializers.DecimalField(max_digits=12, decimal_places=2)
    discount = serializers.DecimalField(max_digits=12, decimal_places=2)
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    coupon = serializers.CharField(allow_null=True)
    lines = CartItemOutput(many=True)
    cart = CartOutput()


class EventOutput(serializers.Serializer):
    position = serializers.IntegerField()
    event_id = serializers.UUIDField()
    stream_id = serializers.CharField()
    version = serializers.IntegerField()
    type = serializers.CharField()
    schema_version = serializers.IntegerField()
    metadata = serializers.JSONField()
    occurred_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()

    def get_fields(self) -> dict[str, serializers.Field]:
        # `data` is also the name of Serializer's output property, so it cannot be a class attribute.
        return {**super().get_fields(), "data": serializers.JSONField()}


def cart_body(state: CartState) -> dict[str, Any]:
    """The cart document (carts/document.py) with the catalog's product names, as every cart endpoint
    answers. Written without the serializer: DRF builds a serializer's fields anew for every response,
    which cost about a millisecond, the largest part of a cart request's Python (docs/round-trips.md);
    a test keeps it equal to what `CartOutput` writes."""
    return cart_document(state, product_names([line.sku for line in state.lines]))
