"""POST /bench/ceiling {sku, quantity}: validate, insert one row, answer 201.

The same framework path as AddToCart (DRF, token auth, JSON parser and
renderer, the problem+json error handler), minus the domain: the framework's
own ceiling on this machine.
"""

from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .models import CeilingRow


class CeilingInput(serializers.Serializer):
    sku = serializers.CharField(max_length=40)
    quantity = serializers.IntegerField(min_value=1, max_value=99)


class CeilingView(APIView):
    def post(self, request: Request) -> Response:
        given = CeilingInput(data=request.data)
        given.is_valid(raise_exception=True)
        row = CeilingRow.objects.create(**given.validated_data)
        return Response({"id": row.pk, **given.validated_data}, status=status.HTTP_201_CREATED)
