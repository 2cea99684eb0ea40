"""Why a cart command is refused. Each error says it in words a shopper understands;
`cartlog.problems` maps each class to an HTTP status in one place.
"""


class CartError(Exception):
    """A cart command was rejected; nothing was appended (invariant 8)."""

    title = "Cart command rejected"
    field: str | None = None

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidQuantityError(CartError):
    title = "Invalid quantity"
    field = "quantity"


class UnknownProductError(CartError):
    title = "Unknown product"
    field = "sku"


class InactiveProductError(CartError):
    title = "Product not available"
    field = "sku"


class ItemNotInCartError(CartError):
    title = "Item not in cart"


class TooManyLinesError(CartError):
    title = "Too many different products"


class CartNotFoundError(CartError):
    title = "Cart not found"


class CartAlreadyExistsError(CartError):
    title = "Cart already exists"


class CartCheckedOutError(CartError):
    title = "Cart already checked out"


class EmptyCartError(CartError):
    title = "Cart is empty"


class StaleVersionError(CartError):
    """If-Match named a version that is no longer current (HTTP 412)."""

    title = "Cart changed since you read it"


class ConcurrencyConflictError(CartError):
    """Retries ran out against concurrent writers (HTTP 409)."""

    title = "Cart is busy"


class IdempotencyKeyReusedError(CartError):
    title = "Idempotency-Key reused for a different request"
