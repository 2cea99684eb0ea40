"""OpenAPI pieces shared by every endpoint: the problem document and header parameters."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


class ProblemSerializer(serializers.Serializer):
    """An error, as `application/problem+json` (RFC 9457)."""

    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()

    def get_fields(self) -> dict[str, serializers.Field]:
        # `errors` is also a Serializer property, so it cannot be a class attribute.
        errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False)
        return {**super().get_fields(), "errors": errors}


def problem(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=ProblemSerializer, description=description)


IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description='The cart version you read, as `"<version>"` (from the ETag). A stale version gets 412. '
    "Without it, the server retries a concurrency conflict itself.",
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Any unique string per intended command. Repeating it returns the first outcome and appends "
    "nothing; reusing it for a different request gets 422.",
)
