"""The catalog: products with their `also_bought` recommendations."""

from typing import Any

from django.db.models import Q
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
from catalog.models import Product
from kernel.errors import NotFoundError


class ProductNotFoundError(NotFoundError):
    title = "Product not found"


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
    also_bought = AlsoBoughtOutput(many=True)


def product_data(product: Product, recommendations: list[dict[str, Any]]) -> dict[str, Any]:
    fields = ("sku", "name", "description", "category", "price", "active")
    return {**{f: getattr(product, f) for f in fields}, "also_bought": recommendations}


class ProductsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="list_products",
        summary="The catalog: every product on sale",
        description="Every active product, optionally of one category or matching `q` (in the name, or the exact "
        "SKU), each with its also-bought recommendations from the last Spark run.",
        examples=ex.LIST_PRODUCTS,
        parameters=[
            OpenApiParameter("category", OpenApiTypes.STR, description="Only this category"),
            OpenApiParameter("q", OpenApiTypes.STR, description="Search in names"),
        ],
        responses={200: ProductOutput(many=True)},
    )
    def get(self, request: Request) -> Response:
        products = Product.objects.filter(active=True)  # what can be bought; one SKU still shows inactive ones
        if category := request.query_params.get("category"):
            products = products.filter(category=category)
        if query := request.query_params.get("q"):
            products = products.filter(Q(name__icontains=query) | Q(sku__iexact=query))
        return Response(ProductOutput([product_data(p, also_bought(p.sku)) for p in products], many=True).data)


class ProductView(APIView):
    permission_classes = [AllowAny]

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
        return Response(ProductOutput(product_data(product, also_bought(product.sku))).data)
