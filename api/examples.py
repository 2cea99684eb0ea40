"""Examples for the OpenAPI document: one request and every response of each operation.

Problem documents are built by `api.problems.problem`, the function that builds the
real ones, so an example cannot drift from what the API sends. A list response's
example is one element: drf-spectacular wraps it in the list itself.
"""

from typing import Any

from drf_spectacular.utils import OpenApiExample

from .problems import problem as problem_body

CART_ID = "0af92b3b-8d8b-403c-9e09-ebb1cbe8d261"
ORDER_ID = "5b0f3c2e-9d4a-4c1b-8e7f-2a6d1c0b9e83"  # a checkout's order id is a UUID too
COMMAND_ID = "e3b14c9a-6f0d-4b8e-a2c7-91d5f0e6b3a4"


def request(name: str, value: Any, description: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, description=description, request_only=True)


def response(name: str, value: Any, status: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[str(status)])


def refusal(
    status: int, title: str, detail: str, errors: dict[str, list[str]] | None = None, name: str = ""
) -> OpenApiExample:
    """A problem document exactly as `api.problems` sends it; `name` tells apart two of one status and title
    (the document keys examples by name, and the second would replace the first)."""
    return OpenApiExample(
        name or f"{status} {title}",
        value=problem_body(status, title, detail, errors),
        response_only=True,
        status_codes=[str(status)],
    )


ITEM = {"sku": "COF-001", "name": "Ethiopian Yirgacheffe Beans 250g", "quantity": 2, "unit_price": "12.50",
        "line_total": "25.00"}  # fmt: skip
EMPTY_CART: dict[str, Any] = {"id": CART_ID, "status": "open", "items": [], "subtotal": "0.00", "discount": "0.00",
                              "total": "0.00", "coupon": None, "order_id": None, "version": 1}  # fmt: skip
CART = {**EMPTY_CART, "items": [ITEM], "subtotal": "25.00", "total": "25.00", "version": 2}
CHECKED_OUT = {**CART, "status": "checked_out", "discount": "2.50", "total": "22.50", "coupon": "WELCOME10",
               "order_id": ORDER_ID, "version": 3}  # fmt: skip
ORDER = {"order_id": ORDER_ID, "subtotal": "25.00", "discount": "2.50", "total": "22.50", "coupon": "WELCOME10",
         "lines": [ITEM], "cart": CHECKED_OUT, "position": 45}  # fmt: skip
# A command's answer is the cart plus `position`, the log position of its last event on the cart's stream
# (the Cartlog-Position header): 41 started the cart, 42 is the ItemAdded of EVENT below.
STARTED = {**EMPTY_CART, "position": 41}
ADDED = {**CART, "position": 42}
EVENT = {"position": 42, "event_id": "5d0c7f3e-2f1b-4a53-9d0e-6c1f0b9e8a11", "stream_id": f"cart-{CART_ID}",
         "version": 2, "type": "ItemAdded", "schema_version": 1,
         "data": {"sku": "COF-001", "quantity": 2, "unit_price": "12.50"},
         "metadata": {"actor": "user:7", "command": "AddToCart", "command_id": COMMAND_ID, "causation_id": None,
                      "correlation_id": COMMAND_ID},
         "occurred_at": "2026-03-02T10:15:00Z",
         "recorded_at": "2026-03-02T10:15:00.012Z"}  # fmt: skip
PRODUCT = {"sku": "COF-001", "name": "Ethiopian Yirgacheffe Beans 250g", "description": "Floral, citrus, light roast.",
           "category": "Coffee & Tea", "price": "12.50", "active": True, "stock": 42,
           "also_bought": [{"sku": "KIT-001", "name": "Pour-Over Dripper", "price": "24.00", "support": 0.12,
                            "confidence": 0.4, "lift": 2.1}]}  # fmt: skip
CLAIM = {"claim_id": "3f6d2c1a-8b7e-4f0a-9c5d-2e1b0a9f8c7d", "kind": "username", "key": "alice", "status": "accepted",
         "reason": "first claim while free", "requested_position": 40, "decided_position": 41}  # fmt: skip

NOT_AUTHENTICATED = refusal(401, "Not authenticated", "Authentication credentials were not provided.")
NOT_STAFF = refusal(403, "Forbidden", "You do not have permission to perform this action.")
NO_CART = refusal(404, "Cart not found", "This cart does not exist.")
BAD_HEADER = refusal(400, "Invalid input", "Some fields of the request are invalid; see errors.",
                     {"If-Match": ['If-Match must be a cart version in quotes, like "3".']})  # fmt: skip
CHECKED_OUT_409 = refusal(409, "Cart already checked out",
                          "This cart has already been checked out; it can no longer change.")  # fmt: skip
STALE = refusal(412, "Cart changed since you read it",
                "The cart is at version 3, not 2; reload it and try again.")  # fmt: skip
KEY_REUSED = refusal(422, "Idempotency-Key reused for a different request",
                     "This Idempotency-Key was already used for a different request; use a new key.")  # fmt: skip
TOO_MANY = refusal(429, "Too many requests", "Request was throttled. Expected available in 60 seconds.")
MIN_POSITION_MESSAGE = "min_position must be a log position: a whole number from 0, at most 18 digits."
BAD_MIN_POSITION = refusal(400, "Invalid input", "Some fields of the request are invalid; see errors.",
                           {"min_position": [MIN_POSITION_MESSAGE]})  # fmt: skip
BEHIND = OpenApiExample(
    "503 View not caught up yet",
    value={**problem_body(503, "View not caught up yet", "The order_history view covers log position 1840, not yet "
                          "1842; retry shortly."), "view": "order_history", "covers_position": 1840,
           "min_position": 1842},
    response_only=True,
    status_codes=["503"],
)  # fmt: skip
MIN_POSITION_REFUSALS = [BAD_MIN_POSITION, BEHIND]
COMMAND_REFUSALS = [NOT_AUTHENTICATED, NO_CART, CHECKED_OUT_409, STALE, KEY_REUSED]


# One list per operation (its operation_id in capitals): request, success, then each refusal.
START_CART = [response("Started", STARTED, 201), BAD_HEADER, NOT_AUTHENTICATED, KEY_REUSED]
GET_CART = [
    response("A cart", CART),
    refusal(
        400,
        "Invalid input",
        "Some fields of the request are invalid; see errors.",
        {"at_version": ["at_version must be a whole number from 1 to 2, the cart's current version."]},
    ),
    NOT_AUTHENTICATED,
    NO_CART,
]
LIST_CART_EVENTS = [
    response("Events", EVENT),
    refusal(400, "Invalid input", "Some fields of the request are invalid; see errors.",
            {"limit": ["limit must be a whole number from 1 to 1000."]}),
    NOT_AUTHENTICATED,
    NO_CART,
]  # fmt: skip
ADD_TO_CART = [
    request("Two bags of beans", {"sku": "COF-001", "quantity": 2}),
    response("Added", ADDED),
    refusal(
        400,
        "Invalid quantity",
        "Quantity must be between 1 and 99.",
        {"quantity": ["Quantity must be between 1 and 99."]},
    ),
    *COMMAND_REFUSALS,
]
UPDATE_CART_QUANTITY = [
    request("Set to three", {"quantity": 3}),
    response(
        "Changed",
        {
            **CART,
            "items": [{**ITEM, "quantity": 3, "line_total": "37.50"}],
            "subtotal": "37.50",
            "total": "37.50",
            "version": 3,
            "position": 43,
        },
    ),
    refusal(
        400,
        "Invalid input",
        "Some fields of the request are invalid; see errors.",
        {"quantity": ["A whole number is required (a JSON integer, not a string or decimal)."]},
    ),
    NOT_AUTHENTICATED,
    refusal(404, "Item not in cart", "KIT-001 is not in this cart."),
    CHECKED_OUT_409,
    STALE,
    KEY_REUSED,
]
REMOVE_FROM_CART = [
    response("Removed", {**EMPTY_CART, "version": 3, "position": 43}),
    BAD_HEADER,
    NOT_AUTHENTICATED,
    refusal(404, "Item not in cart", "KIT-001 is not in this cart."),
    CHECKED_OUT_409,
    STALE,
    KEY_REUSED,
]
CHECKOUT = [
    request("With a coupon", {"coupon": "WELCOME10"}),
    request("Without a coupon", {}),
    request(
        "With shipping details",
        {"shipping": {"name": "Ada Lovelace", "email": "ada@example.org", "address": "12 St James's Square, London"}},
    ),
    response("Ordered", ORDER),
    refusal(
        400, "Invalid coupon", "There is no active coupon 'NOPE'.", {"coupon": ["There is no active coupon 'NOPE'."]}
    ),
    NOT_AUTHENTICATED,
    NO_CART,
    refusal(409, "Cart is empty", "Your cart is empty; add something before checking out."),
    CHECKED_OUT_409,
    refusal(409, "Coupon already used", "The coupon ONCE20 has already been used."),
    OpenApiExample(
        "409 Out of stock",
        value={
            **problem_body(
                409,
                "Out of stock",
                "Only 1 of TEA-003 left; your cart asks for 2.",
                {"lines": ["Only 1 of TEA-003 left; your cart asks for 2."]},
            ),
            "sku": "TEA-003",
            "available": 1,
        },
        response_only=True,
        status_codes=["409"],
    ),
    refusal(
        409,
        "Reservation expired",
        "The units of TEA-003 set aside for this checkout were released before the order was placed; check out again.",
    ),
    refusal(
        409,
        "Checkout in progress",
        "Another checkout of this cart holds the TEA-003 it needs: it is still being placed, or it failed and the "
        "units go back by 10:20:00 UTC. Check out again in a moment to learn whether it placed your order.",
    ),
    refusal(409, "Cart is busy", "The cart kept changing while it was being checked out; try again."),
    STALE,
    KEY_REUSED,
    refusal(
        503, "Coupon check pending", "We could not confirm your coupon yet; please try checking out again in a moment."
    ),
]
SIGN_UP = [
    request("Alice", {"username": "alice", "password": "correct horse battery"}),
    response("Created", {"username": "alice"}, 201),
    response("Pending", {"claim_id": CLAIM["claim_id"], "status": "pending"}, 202),
    refusal(
        400,
        "Invalid sign-up",
        "This password is too short. It must contain at least 8 characters.",
        {"password": ["This password is too short. It must contain at least 8 characters."]},
    ),
    refusal(409, "Username taken", "The username 'alice' is already taken."),
    TOO_MANY,
]
LOGIN_TOKEN = [
    request("Alice", {"username": "alice", "password": "correct horse battery"}),
    response("A token", {"token": "9f2c4b7e1a0d8c6b5e3f2a1d0c9b8a7e6f5d4c3b2a190817"}),
    refusal(400, "Invalid credentials", "The username or password is wrong."),
    TOO_MANY,
]
LOGOUT_TOKEN = [NOT_AUTHENTICATED]
FORGET_ME = [NOT_AUTHENTICATED, refusal(403, "Forbidden", "CSRF Failed: CSRF token missing.")]  # a session without it
LIST_PRODUCTS = [response("The catalog", PRODUCT)]
GET_PRODUCT = [
    response("A product", PRODUCT),
    refusal(404, "Product not found", "There is no product with SKU 'NOPE-1'."),
]
GET_CLAIM = [response("Accepted", CLAIM), refusal(404, "Claim not found", "There is no claim with this id.")]
LIST_ORDERS = [
    response("Newest first", {"order_id": ORDER_ID, "cart_id": CART_ID, "lines": [{k: ITEM[k] for k in
              ("sku", "name", "quantity", "unit_price", "line_total")}], "subtotal": "25.00", "discount": "2.50",
              "total": "22.50", "coupon": "WELCOME10", "checked_out_at": "2026-03-02T10:20:00Z", "position": 1842,
              "shipping": {"name": "Ada Lovelace", "email": "ada@example.org",
                           "address": "12 St James's Square, London"}}),
    NOT_AUTHENTICATED,
    refusal(400, "Invalid input", "Some fields of the request are invalid; see errors.",
            {"cursor": ["cursor must be one this endpoint gave in a `next` or `previous` link."]},
            name="400 Invalid cursor"),
    *MIN_POSITION_REFUSALS,
]  # fmt: skip
LIST_PROJECTIONS = [
    response(
        "Status",
        {
            "name": "cart_view",
            "kind": "inline projection",
            "transport": "inline",
            "checkpoint": 120,
            "head": 120,
            "lag_events": 0,
            "lag_seconds": 0.0,
            "running": True,
            "waiting": None,
            "failing": None,
            "rebuild": None,
        },
    ),
    NOT_AUTHENTICATED,
    NOT_STAFF,
    *MIN_POSITION_REFUSALS,
]
