"""The catalog: products with their `also_bought` recommendations; `?q=` searches the
index derived from the product streams (`catalog/search.py`), best match first."""

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.queries import also_bought
from api import examples as ex
from api.schema import problem
from catalog import search
from catalog.errors import ProductNotFoundError
from catalog.models import Product
from inventory.services import available, available_one


class AlsoBoughtOutput(serializers.Serializer):
    sku = serializers.CharField()
    name = serializers.CharField()
    price = serializers.DecimalField(max_digits=10, decimal_places=2)
    support = serializers.FloatField()
    confidence = serializers.FloatField()
    lift = serializers.FloatField()


class ProductOutput(serializers.Serializer):
    sku = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    category = serializers.CharField()
    price = serializers.DecimalField(max_digits=10, decimal_places=2)
    active = serializers.BooleanField()
    stock = serializers.IntegerField(
        allow_null=True,
        help_text="Units available now (on hand, less what checkouts have reserved); null: sold without limit "
        "(the product has no stock stream).",
    )
    also_bought = AlsoBoughtOutput(many=True)


def product_data(product: Product, recommendations: list[dict[str, Any]], stock: int | None) -> dict[str, Any]:
    fields = ("sku", "name", "description", "category", "price", "active")
    return {**{f: getattr(product, f) for f in fields}, "stock": stock, "also_bought": recommendations}


class ProductsView(APIView):
    permission_classes = [AllowAny]
    # Anyone may read it: a stale token sent along (an SDK sends its token with every call) must not
    # refuse it with 401, as it must not refuse a login (api/accounts.py: TokenView).
    authentication_classes: list[type] = []

    @extend_schema(
        operation_id="list_products",
        summary="The catalog: every product on sale",
        description="Every active product, optionally of one category, each with its also-bought recommendations "
        "from the last Spark run. With `q`, only the products that match every word of it (as a word or the start "
        "of one) in the name, category, SKU or description, or whose SKU begins with `q` (`kit-00`), best match "
        "first: a match in the name ranks above one in the category or SKU, which ranks above one in the "
        "description.",
        examples=ex.LIST_PRODUCTS,
        parameters=[
            OpenApiParameter("category", OpenApiTypes.STR, description="Only this category"),
            OpenApiParameter("q", OpenApiTypes.STR, description="Search name, category, SKU and description, ranked"),
        ],
        responses={200: ProductOutput(many=True)},
    )
    def get(self, request: Request) -> Response:
        category = request.query_params.get("category", "")
        if query := request.query_params.get("q", "").strip()[:100]:
            products = search.matching_products(query, category=category)
        else:  # what can be bought; one SKU still shows inactive ones
            products = list(Product.objects.filter(active=True, **({"category": category} if category else {})))
        stock = available(p.sku for p in products)
        data = [product_data(p, also_bought(p.sku), stock.get(p.sku)) for p in products]
        return Response(ProductOutput(data, many=True).data)


class ProductView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []  # as ProductsView

    @extend_schema(
        operation_id="get_product",
        summary="One product, with what customers also bought",
        description="One product by SKU, also when it is no longer on sale (`active: false`), with what "
        "customers also bought.",
        examples=ex.GET_PRODUCT,
        responses={200: ProductOutput, 404: problem("No such product")},
    )
    def get(self, request: Request, sku: str) -> Response:
        product = Product.objects.filter(sku=sku).first()
        if product is None:
            raise ProductNotFoundError(f"There is no product with SKU {sku!r}.")
        stock = available_one(product.sku)
        return Response(ProductOutput(product_data(product, also_bought(product.sku), stock)).data)
