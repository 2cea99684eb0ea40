"""GET /api/orders: the caller's orders, from the `order_history` view a consumer keeps.

That view is updated after the checkout commits, so a client that has just
checked out passes the checkout's `Cartlog-Position` as `min_position` to be
sure its order is listed (api/freshness.py, docs/read-your-writes.md). The view
holds the shipping details sealed; they are opened here, for their owner only
(`[erased]` once the person is forgotten: docs/personal-data.md).
"""

from typing import Any, cast

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.services import principal
from api import examples as ex
from api.schema import LARGEST_NUMBER, problem, whole_number
from catalog.queries import product_names
from kernel.digits import is_number
from privacy.personal import Revealer
from projections import order_history
from projections.models import OrderHistory

from .cart_serializers import ShippingOutput
from .freshness import MIN_POSITION_ERRORS, MIN_POSITION_PARAMETERS, consumer_view, stamped


class OrderLineOutput(serializers.Serializer):
    sku = serializers.CharField()
    name = serializers.CharField(help_text="the product's name in the catalog now (its SKU if no longer there)")
    quantity = serializers.IntegerField()
    unit_price = serializers.DecimalField(max_digits=12, decimal_places=2)
    line_total = serializers.DecimalField(max_digits=12, decimal_places=2)


class OrderHistoryOutput(serializers.Serializer):
    order_id = serializers.CharField()
    cart_id = serializers.CharField()
    lines = serializers.SerializerMethodField()
    subtotal = serializers.DecimalField(max_digits=12, decimal_places=2)
    discount = serializers.DecimalField(max_digits=12, decimal_places=2)
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    coupon = serializers.CharField(allow_null=True)
    checked_out_at = serializers.DateTimeField(source="placed_at", help_text="the checkout's event time")
    position = serializers.IntegerField(help_text="the log position of its CheckedOut event")
    shipping = serializers.SerializerMethodField()

    @extend_schema_field(OrderLineOutput(many=True))
    def get_lines(self, row: OrderHistory) -> list[dict[str, Any]]:
        """The lines as sold, named as the checkout's answer names them: by the catalog's current
        names (the event keeps prices, not names; a cached read, not a query per order)."""
        names = product_names([line["sku"] for line in row.lines])
        named = [{**line, "name": names[line["sku"]]} for line in row.lines]
        return cast(list[dict[str, Any]], OrderLineOutput(named, many=True).data)

    @extend_schema_field(ShippingOutput(allow_null=True))
    def get_shipping(self, row: OrderHistory) -> dict[str, str] | None:
        context = cast(dict[str, Any], self.context)
        reveal = context.setdefault("reveal", Revealer())  # one key lookup per page, not per row
        shipping = reveal(row.shipping)
        # In the schema's order (name, email, address), not the sealed document's sorted keys.
        return None if shipping is None else cast(dict[str, str], ShippingOutput(shipping).data)


class NewestFirst(CursorPagination):
    # The log position is unique and only grows: a stable cursor, newest order first.
    ordering = "-position"
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    invalid_cursor = "cursor must be one this endpoint gave in a `next` or `previous` link."

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """DRF's, with this endpoint's own links as examples (DRF's are another API's) and both
        links always present: null at either end of the list."""
        paginated = super().get_paginated_response_schema(schema)
        paginated["required"] = ["next", "previous", "results"]
        paginated["properties"]["next"]["example"] = "https://shop.example.org/api/orders?cursor=cD0xODIy"
        paginated["properties"]["previous"]["example"] = None
        return paginated

    def decode_cursor(self, request: Request) -> Cursor | None:
        """DRF's cursor, refused with a 400 naming `cursor` unless its position is a log position.

        DRF decodes the position as any text and puts it into the query as it is; one that
        is not a whole number failed there, as a 500."""
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise ValidationError({"cursor": [self.invalid_cursor]}) from None
        if cursor is not None and cursor.position is not None and not is_number(str(cursor.position), max_digits=19):
            raise ValidationError({"cursor": [self.invalid_cursor]})
        return cursor

    def get_page_size(self, request: Request) -> int:
        """`page_size`: a whole number from 1 (more than 100 gives 100), or a 400 naming it. DRF
        fell back to 20 for 0, -1 or `abc`, and copied the value into the `next` link."""
        text = request.query_params.get(self.page_size_query_param)
        if text is None:
            return self.page_size
        if not is_number(text) or int(text) < 1:
            raise ValidationError({"page_size": [f"page_size must be a whole number from 1 to {self.max_page_size}."]})
        return min(int(text), self.max_page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """`page_size` with the range `get_page_size` accepts (the schema said any integer)."""
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = whole_number(1, LARGEST_NUMBER)
        return parameters


class OrdersView(ListAPIView):
    serializer_class = OrderHistoryOutput
    pagination_class = NewestFirst

    def get_queryset(self) -> QuerySet[OrderHistory]:
        return OrderHistory.objects.filter(account=str(principal(self.request.user)))  # type: ignore[arg-type]

    @extend_schema(
        operation_id="list_orders",
        summary="Your orders, newest first, from the order_history view (paginated by cursor)",
        description="The caller's placed orders from the order_history projection, newest first, 20 a page "
        "(`page_size` up to 100; follow `next`). Send `min_position` (or Cartlog-Min-Position) from a checkout "
        "to wait until the order is in the view.",
        examples=ex.LIST_ORDERS,
        parameters=MIN_POSITION_PARAMETERS,
        responses={200: OrderHistoryOutput(many=True), 401: problem("No valid token or session"),
                   **MIN_POSITION_ERRORS,
                   400: problem("min_position is not a whole number, or cursor is not one this endpoint gave")},
    )  # fmt: skip
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The position is read before the rows: the rows cover at least what the header says.
        covers = consumer_view(request, order_history.NAME)
        return stamped(self.list(request, *args, **kwargs), covers)
