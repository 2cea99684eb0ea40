"""OpenAPI pieces shared by every endpoint: the problem document and header parameters."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import serializers

from api import problems
from api.input_guard import API_HEADERS


class TokenAuthScheme(OpenApiAuthenticationExtension):
    """`Authorization: Token <t>` (accounts/authentication.py), named as DRF's token scheme was."""

    target_class = "accounts.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return dict(build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token"))


MESSAGES: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


@extend_schema_field({"oneOf": [MESSAGES, {"type": "object", "additionalProperties": MESSAGES}]})
class FieldErrorsField(serializers.Field):
    """The messages of one field, or, for a field that is an object (checkout's `shipping`),
    the messages of each of its fields: `errors.shipping.email` (docs/api.md)."""


class ProblemSerializer(serializers.Serializer):
    """An error, as `application/problem+json` (RFC 9457)."""

    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    # RFC 9457 extension members some refusals add (their `problem_members`): documented, so a
    # client reading the document knows them (inventory/errors.py, api/freshness.py).
    sku = serializers.CharField(required=False, help_text="409 out of stock: the product that is short")
    available = serializers.IntegerField(required=False, help_text="409 out of stock: the units left of it")
    view = serializers.CharField(required=False, help_text="503: the view that has not caught up")
    covers_position = serializers.IntegerField(required=False, help_text="503: the log position that view covers")
    min_position = serializers.IntegerField(required=False, help_text="503: the position the request asked for")

    def get_fields(self) -> dict[str, serializers.Field]:
        # `errors` is also a Serializer property, so it cannot be a class attribute.
        errors = serializers.DictField(child=FieldErrorsField(), required=False)
        return {**super().get_fields(), "errors": errors}


def problem(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=ProblemSerializer, description=description)


PROBLEM_REF = "#/components/schemas/Problem"


def problem_json_for_errors(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every documented problem is served as application/problem+json,
    so the schema says so (views declare `problem(...)` and need not repeat the media type)."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for response in operation.get("responses", {}).values():
                content = response.get("content", {})
                if content.get("application/json", {}).get("schema", {}).get("$ref") == PROBLEM_REF:
                    content["application/problem+json"] = content.pop("application/json")
    return result


def input_refusals_documented(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: an operation that reads a path, query or header value can answer 400,
    whatever its view declares: the input guard (api/input_guard.py) refuses a NUL byte or an
    over-long value before any view runs. Found by the fuzzer (tests/integration/test_api_fuzz.py).
    The example names the operation's own first parameter, as the guard names the value it refused."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not operation.get("parameters"):
                continue
            name = operation["parameters"][0]["name"]
            detail = f"{name} holds a NUL byte."
            example = {
                "summary": "400 Invalid input",
                "value": problems.problem(400, "Invalid input", detail, {name: [detail]}),
            }
            content = {"schema": {"$ref": PROBLEM_REF}, "examples": {"InvalidInput": example}}
            refused = {"description": "A path, query or header value with a NUL byte, or too long",
                       "content": {"application/problem+json": content}}  # fmt: skip
            operation.setdefault("responses", {}).setdefault("400", refused)
    return result


RETRY_AFTER = {
    "schema": {"type": "integer", "minimum": 0},
    "description": "Seconds to wait before sending the request again.",
}
CHECKOUT_IN_PROGRESS_RETRY_AFTER = {
    **RETRY_AFTER,
    "description": "With `checkout-in-progress` only: seconds to wait before sending the checkout again.",
}


def retry_after(operation_id: str, status: str) -> dict[str, Any] | None:
    """The Retry-After an answer carries: every 429 (the throttles) and 503 (kernel.errors.UnavailableError,
    and the database outage of cartlog/outage.py), and the checkout's 409 when another checkout runs."""
    if status in ("429", "503"):
        return RETRY_AFTER
    return CHECKOUT_IN_PROGRESS_RETRY_AFTER if (operation_id, status) == ("checkout", "409") else None


def retry_after_documented(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: the Retry-After header on the answers that send it (api/problems.py:
    domain_problem, the throttles), and Cartlog-Position on a 503 of a view that did not cover
    min_position (api/freshness.py: ViewBehindError sends the position it covers there too)."""
    from api.freshness import POSITION  # imported here: api.freshness builds on this module

    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            for status, response in responses.items():
                if (header := retry_after(operation.get("operationId", ""), status)) is not None:
                    response.setdefault("headers", {})["Retry-After"] = header
            waits = any(parameter["name"] == "min_position" for parameter in operation.get("parameters", []))
            covers = responses.get("200", {}).get("headers", {}).get(POSITION)
            if waits and covers is not None and "503" in responses:
                responses["503"].setdefault("headers", {})[POSITION] = covers
    return result


# Where an answer leads (OpenAPI links): the id a response carries fills the next operation's
# parameters, so a client generator or a stateful tester (schemathesis) can follow a cart's life
# from its start, and a sign-up's pending claim to its decision.
CART_FROM_BODY = {"cart_id": "$response.body#/id"}
LINE_FROM_BODY = {"cart_id": "$response.body#/id", "sku": "$request.body#/sku"}
LINKS: dict[tuple[str, str], dict[str, dict[str, str]]] = {
    ("start_cart", "201"): {
        "get_cart": CART_FROM_BODY, "add_to_cart": CART_FROM_BODY, "list_cart_events": CART_FROM_BODY,
        "checkout": CART_FROM_BODY,
    },
    ("add_to_cart", "200"): {
        "get_cart": CART_FROM_BODY, "update_cart_quantity": LINE_FROM_BODY, "remove_from_cart": LINE_FROM_BODY,
        "checkout": CART_FROM_BODY,
    },
    ("checkout", "200"): {"get_cart": {"cart_id": "$response.body#/cart/id"}, "list_orders": {}},
    ("sign_up", "202"): {"get_claim": {"claim_id": "$response.body#/claim_id"}},
}  # fmt: skip


def links_between_operations(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: the LINKS above, on the responses they start from."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for status, response in operation.get("responses", {}).items():
                targets = LINKS.get((operation.get("operationId", ""), status))
                if targets:
                    response["links"] = {
                        target: {"operationId": target, "parameters": parameters}
                        for target, parameters in targets.items()
                    }
    return result


def whole_number(low: int, high: int) -> dict[str, Any]:
    """An integer parameter's schema, with the range its parser accepts (a 400 outside it)."""
    return {"type": "integer", "minimum": low, "maximum": high}


# What kernel/digits.py: is_number accepts: at most 18 ASCII digits.
LARGEST_NUMBER = 10**18 - 1

IF_MATCH = OpenApiParameter(
    "If-Match",
    # As api/carts.py: parse_if_match reads it: `*`, or a version, quoted or not, perhaps weak.
    {"type": "string", "pattern": r'^\s*(\*|(W/)?"*[0-9]{1,18}"*)\s*$'},
    OpenApiParameter.HEADER,
    description='The cart version you read, as `"<version>"` (from the ETag). A stale version gets 412. '
    "Without it, the server retries a concurrency conflict itself.",
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "maxLength": API_HEADERS["Idempotency-Key"]},  # longer: refused by the input guard
    OpenApiParameter.HEADER,
    description="Any unique string per intended command. Repeating it returns the first outcome and appends "
    "nothing; reusing it for a different request gets 422.",
)
ETAG = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200, 201],
    description='The cart version this response shows, as `"<version>"`; send it back as If-Match.',
)


def location_header(status: int, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        "Location", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[status], description=description
    )
