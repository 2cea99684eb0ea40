"""Cart endpoints: parse -> command -> handler -> serialize. No rules live here."""

from dataclasses import replace
from typing import Any

from django.http import HttpRequest
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.services import principal
from api import examples as ex
from api.schema import ETAG, IDEMPOTENCY_KEY, IF_MATCH, LARGEST_NUMBER, location_header, problem, whole_number
from carts import checkout, errors, handler, services, streams
from carts.decider import CartState
from carts.handler import Context, Outcome
from carts.shipping import Shipping
from eventlog import store
from kernel.digits import is_number
from privacy.personal import Revealer
from projections import cart_view

from .cart_serializers import (
    AddItemInput,
    CartOutput,
    CheckoutInput,
    EventOutput,
    OrderOutput,
    QuantityInput,
    cart_body,
    plain_add_item,
)
from .freshness import POSITION
from .lean import Answer, LeanAPIView

NOT_AUTHENTICATED = problem("No valid token or session")
POSITION_HEADER = OpenApiParameter(
    POSITION,
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    response=[200, 201],
    description="The log position of the command's last event (of the first send, for a repeat); "
    "pass it as `min_position` to read your write on an async view.",
)
# A command's ETag: the version it left, or on a 412 the version the cart is at (what to send as If-Match next).
COMMAND_ETAG = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200, 412],
    description='The cart version this response shows, as `"<version>"`; send it back as If-Match. On a 412, '
    "the version the cart is at now (reload the cart to see what changed).",
)
BAD_HEADER = problem("A malformed If-Match or Idempotency-Key header")
READ_ERRORS = {401: NOT_AUTHENTICATED, 404: problem("No such cart (or not yours)")}
COMMAND_ERRORS = {
    400: problem("Invalid input (field errors in `errors`), or a malformed header"),
    401: NOT_AUTHENTICATED,
    404: problem("No such cart (or not yours), or the item is not in it"),
    409: problem("The cart is checked out, already holds 50 different products (adding another), or too busy"),
    412: problem("If-Match names a version that is no longer current; the ETag is the cart's version now"),
    422: problem("Idempotency-Key reused for a different request"),
}


# Stored with the actor as one key of at most 300 characters (carts.models.ProcessedCommand).
MAX_IDEMPOTENCY_KEY = 200


def context_for(request: Request | HttpRequest) -> Context:
    # From META, as request.headers would read them: building that mapping of every header costs more.
    meta = request.META
    return Context(
        actor=principal(request.user),  # type: ignore[arg-type]
        idempotency_key=parse_idempotency_key(meta.get("HTTP_IDEMPOTENCY_KEY")),
        expected_version=parse_if_match(meta.get("HTTP_IF_MATCH")),
        correlation_id=meta.get("HTTP_X_CORRELATION_ID") or None,
    )


def parse_idempotency_key(value: str | None) -> str | None:
    if not value:
        return None
    if len(value) > MAX_IDEMPOTENCY_KEY:
        raise ValidationError({"Idempotency-Key": [f"Idempotency-Key has at most {MAX_IDEMPOTENCY_KEY} characters."]})
    return value


def parse_if_match(value: str | None) -> int | None:
    if value is None or value.strip() == "*":
        return None
    text = value.strip().removeprefix("W/").strip('"')
    if not is_number(text):
        raise ValidationError({"If-Match": ['If-Match must be a cart version in quotes, like "3".']})
    return int(text)


def parse_at_version(value: str, current: int) -> int:
    if not is_number(value) or not 1 <= int(value) <= current:
        message = f"at_version must be a whole number from 1 to {current}, the cart's current version."
        raise ValidationError({"at_version": [message]})
    return int(value)


def cart_response(
    state: CartState, status: int = 200, headers: dict[str, str] | None = None, extra: dict[str, int] | None = None
) -> Answer:
    """The cart document (and `extra` fields after it), its version as the ETag."""
    body = cart_body(state)
    if extra:
        body.update(extra)
    return Answer(body, status=status, headers={"ETag": f'"{state.version}"', **(headers or {})}, native=True)


class CommandCartOutput(CartOutput):
    position = serializers.IntegerField(help_text="the log position of the command's last event")


class PlacedOrderOutput(OrderOutput):
    position = serializers.IntegerField(help_text="the log position of the CheckedOut event")


def last_position(outcome: Outcome) -> int:
    """The position of the command's last event; for a repeat (or a command that changed
    nothing), of the event that made the version it answers with, read from the stream."""
    if outcome.events:
        return outcome.events[-1].position
    made = store.read_stream(streams.stream_id(outcome.state.cart_id), outcome.state.version)
    return made[-1].position if made else 0


def command_response(outcome: Outcome, status: int = 200, headers: dict[str, str] | None = None) -> Answer:
    """A command's answer: the cart it left, its version and the position of its last event."""
    position = last_position(outcome)
    headers = {POSITION: str(position), **(headers or {})}
    return cart_response(outcome.state, status, headers, extra={"position": position})


def own_cart(request: Request, cart_id: str) -> CartState:
    """The cart from the projection, if it exists and belongs to the caller."""
    found = cart_view.read(cart_id)
    if found is None or found[0].owner != str(principal(request.user)):  # type: ignore[arg-type]
        raise errors.CartNotFoundError("This cart does not exist.")
    return found[0]


class StartCartView(LeanAPIView):
    @extend_schema(
        operation_id="start_cart",
        summary="Start a cart (StartCart)",
        description="Appends CartStarted to a new stream owned by the caller and answers with the empty cart, its "
        "Location and its ETag. Send an Idempotency-Key to make a retry safe.",
        examples=ex.START_CART,
        request=None,
        parameters=[IDEMPOTENCY_KEY, ETAG, POSITION_HEADER, location_header(201, "The new cart")],
        responses={201: CommandCartOutput, 400: BAD_HEADER, 401: NOT_AUTHENTICATED, 422: COMMAND_ERRORS[422]},
    )
    def post(self, request: Request) -> Answer:
        # A new cart has no version a client could have read: an If-Match (a client that sends one on
        # every command) pins nothing here. It was a 412 "at version 0, not 1" the document did not list.
        outcome = services.start_cart(replace(context_for(request), expected_version=None))
        location = f"/api/carts/{outcome.state.cart_id}"
        return command_response(outcome, status=201, headers={"Location": location})


class GetCartView(LeanAPIView):
    @extend_schema(
        operation_id="get_cart",
        summary="A cart: current state from cart_view, or replayed to a version",
        description="The cart as `cart_view` has it (never read from the log), or, with `at_version=N`, the cart's "
        "stream replayed to version N. Someone else's cart is a 404, exactly like a cart that does not exist.",
        examples=ex.GET_CART,
        parameters=[
            OpenApiParameter(
                "at_version",
                whole_number(1, LARGEST_NUMBER),
                description="Replay the stream up to this version (1 to the cart's current version).",
            ),
            ETAG,
        ],
        responses={200: CartOutput, 400: problem("at_version is not a version of this cart"), **READ_ERRORS},
    )
    def get(self, request: Request, cart_id: str) -> Answer:
        state = own_cart(request, cart_id)
        at_version = request.query_params.get("at_version")
        if at_version is None:
            return cart_response(state)
        return cart_response(handler.load(cart_id, parse_at_version(at_version, state.version)))


EVENTS_LIMIT, EVENTS_MAX_LIMIT = 100, 1000
MAX_VERSION = 2**31 - 1  # a stream version is a PostgreSQL integer
NEXT_LINK = OpenApiParameter(
    "Link",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200],
    description='`</api/carts/<id>/events?after_version=N&limit=M>; rel="next"` while more events follow this '
    "page (N is the page's last version); absent on the last page.",
)


def parse_count(params: Any, name: str, default: int, low: int, high: int) -> int:
    """A query parameter that must be ASCII digits from `low` to `high`; 400 naming it otherwise."""
    value = params.get(name)
    if value is None:
        return default
    if not is_number(value) or not low <= int(value) <= high:
        raise ValidationError({name: [f"{name} must be a whole number from {low} to {high}."]})
    return int(value)


def next_link(cart_id: str, after_version: int, limit: int) -> str:
    return f'</api/carts/{cart_id}/events?after_version={after_version}&limit={limit}>; rel="next"'


class CartEventsView(LeanAPIView):
    """The stream a page at a time: `?after_version=N&limit=M`; a `Link: <...>; rel="next"` while more follow.

    The body stays a JSON list (as before pagination), so the cursor travels in the header.
    """

    @extend_schema(
        operation_id="list_cart_events",
        summary="The cart's stream of events, in order, a page at a time",
        description="The events of the cart's stream in version order, with log position, metadata, event time and "
        'recorded time: what the cart was built from. A `Link: <...>; rel="next"` header names the next page.',
        examples=ex.LIST_CART_EVENTS,
        parameters=[
            OpenApiParameter(
                "after_version", whole_number(0, MAX_VERSION), description="Events after this version (default 0)."
            ),
            OpenApiParameter(
                "limit",
                whole_number(1, EVENTS_MAX_LIMIT),
                description=f"At most this many, 1..{EVENTS_MAX_LIMIT} ({EVENTS_LIMIT}).",
            ),
            NEXT_LINK,
        ],
        responses={
            200: EventOutput(many=True),
            400: problem("after_version or limit is not a whole number in range (named in `errors`)"),
            **READ_ERRORS,
        },
    )
    def get(self, request: Request, cart_id: str) -> Response:
        own_cart(request, cart_id)
        after = parse_count(request.query_params, "after_version", 0, 0, MAX_VERSION)
        limit = parse_count(request.query_params, "limit", EVENTS_LIMIT, 1, EVENTS_MAX_LIMIT)
        # One event past the page tells whether a next page exists; a page reads only its own rows.
        page = store.read_stream(streams.stream_id(cart_id), up_to_version=after + limit + 1, after_version=after)
        headers = {}
        if len(page) > limit:
            page = page[:limit]
            headers["Link"] = next_link(cart_id, page[-1].version, limit)
        reveal = Revealer()  # the owner reads their own shipping details; `[erased]` once forgotten
        rows = [{**e.__dict__, "data": reveal.in_data(e.data)} for e in page]
        return Response(EventOutput(rows, many=True).data, headers=headers)


class AddToCartView(LeanAPIView):
    @extend_schema(
        operation_id="add_to_cart",
        summary="Add to the cart (AddToCart); adds to an existing line",
        description="AddToCart: adds `quantity` (1-99) of `sku` to the cart, or to its existing line (at most 99). "
        "Appends ItemAdded with the catalog price of the moment. A refused command appends nothing.",
        examples=ex.ADD_TO_CART,
        request=AddItemInput,
        parameters=[IF_MATCH, IDEMPOTENCY_KEY, COMMAND_ETAG, POSITION_HEADER],
        responses={200: CommandCartOutput, **COMMAND_ERRORS},
    )
    def post(self, request: Request, cart_id: str) -> Answer:
        data = plain_add_item(request.data) or valid(AddItemInput, request)
        outcome = services.add_to_cart(context_for(request), cart_id, data["sku"], data["quantity"])
        return command_response(outcome)


class UpdateCartQuantityView(LeanAPIView):
    @extend_schema(
        operation_id="update_cart_quantity",
        summary="Set a line's quantity (UpdateCartQuantity); 0 removes it",
        description="UpdateCartQuantity: sets the line to `quantity` (0-99); 0 removes the line. Appends "
        "ItemQuantityChanged (or ItemRemoved).",
        examples=ex.UPDATE_CART_QUANTITY,
        request=QuantityInput,
        parameters=[IF_MATCH, IDEMPOTENCY_KEY, COMMAND_ETAG, POSITION_HEADER],
        responses={200: CommandCartOutput, **COMMAND_ERRORS},
    )
    def put(self, request: Request, cart_id: str, sku: str) -> Answer:
        data = valid(QuantityInput, request)
        outcome = services.update_quantity(context_for(request), cart_id, sku, data["quantity"])
        return command_response(outcome)


class RemoveFromCartView(LeanAPIView):
    @extend_schema(
        operation_id="remove_from_cart",
        summary="Remove a line (RemoveFromCart)",
        description="RemoveFromCart: removes the line for `sku`. Appends ItemRemoved.",
        examples=ex.REMOVE_FROM_CART,
        request=None,
        parameters=[IF_MATCH, IDEMPOTENCY_KEY, COMMAND_ETAG, POSITION_HEADER],
        responses={200: CommandCartOutput, **COMMAND_ERRORS, 400: BAD_HEADER},
    )
    def delete(self, request: Request, cart_id: str, sku: str) -> Answer:
        outcome = services.remove_from_cart(context_for(request), cart_id, sku)
        return command_response(outcome)


class CartLineView(UpdateCartQuantityView, RemoveFromCartView):
    """`/carts/<id>/items/<sku>` takes two commands: PUT sets the quantity, DELETE removes the line."""


class CheckoutView(LeanAPIView):
    @extend_schema(
        operation_id="checkout",
        summary="Place the order (Checkout), optionally with a coupon",
        description="Checkout: places the order with an optional coupon and optional shipping details (name, "
        "email, address), which are sealed with your data key before they reach the log (docs/personal-data.md). "
        "A one-time coupon is claimed first "
        "(docs/claims.md); if its claim is not decided in time the answer is 503 with Retry-After. "
        "Appends CheckedOut; the cart can no longer change.",
        examples=ex.CHECKOUT,
        request=CheckoutInput,
        parameters=[IF_MATCH, IDEMPOTENCY_KEY, COMMAND_ETAG, POSITION_HEADER],
        responses={
            200: PlacedOrderOutput,
            **COMMAND_ERRORS,
            409: problem(
                "Empty, already checked out, coupon used, or out of stock (then `sku` and `available` name the "
                "short product; the cart stays open), or another checkout of this cart holds the units "
                "(`/api/problems/checkout-in-progress`, with Retry-After: send it again; with the same "
                "Idempotency-Key it answers with that order)"
            ),
            503: problem("A one-time coupon's claim was not decided in time; retry"),
        },
    )
    def post(self, request: Request, cart_id: str) -> Response:
        data = valid(CheckoutInput, request)
        given = data.get("shipping")
        shipping = Shipping(**given) if given else None
        outcome = checkout.place_order(context_for(request), cart_id, data.get("coupon"), shipping)
        return order_response(outcome)


def order_response(outcome: Outcome) -> Response:
    cart = cart_body(outcome.state)
    position = last_position(outcome)
    body = PlacedOrderOutput(
        {
            "order_id": outcome.state.order_id,
            "subtotal": cart["subtotal"],
            "discount": cart["discount"],
            "total": cart["total"],
            "coupon": cart["coupon"],
            "lines": cart["items"],
            "cart": cart,
            "position": position,
        }
    ).data
    return Response(body, headers={"ETag": f'"{outcome.state.version}"', POSITION: str(position)})


def valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise ParseError("The request body must be a JSON object.")
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
