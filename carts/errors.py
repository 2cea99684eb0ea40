"""Why a cart command is refused. Each error says it in words a shopper understands,
and is of one kind from `kernel.errors` (the web layer maps kinds to HTTP statuses).
"""

from kernel import errors as kinds


class CartError(kinds.DomainError):
    """A cart command was rejected; nothing was appended."""

    title = "Cart command rejected"


class InvalidQuantityError(CartError, kinds.InvalidInputError):
    """A quantity that is not a whole number from 1 to 99 (0 to 99 when setting a line), or a line over 99."""

    title = "Invalid quantity"
    field = "quantity"


class UnknownProductError(CartError, kinds.InvalidInputError):
    """No product of the catalog has this SKU."""

    title = "Unknown product"
    field = "sku"


class InactiveProductError(CartError, kinds.InvalidInputError):
    """The product is withdrawn (taken off sale): it cannot be added."""

    title = "Product not available"
    field = "sku"


class ProductWithdrawnError(CartError, kinds.ConflictError):
    """A line of the cart is a product the catalog no longer sells (checkout)."""

    title = "Product no longer available"
    field = "sku"


class ItemNotInCartError(CartError, kinds.NotFoundError):
    """The cart has no line of this SKU to change or remove."""

    title = "Item not in cart"


class TooManyLinesError(CartError, kinds.ConflictError):
    """The cart already holds 50 different products: remove one to add another."""

    title = "Too many different products"


class CartNotFoundError(CartError, kinds.NotFoundError):
    """No such cart, or one another account owns (answered alike: no existence leak)."""

    title = "Cart not found"


class CartAlreadyExistsError(CartError, kinds.ConflictError):
    """A cart with this id was started before."""

    title = "Cart already exists"


class CartCheckedOutError(CartError, kinds.ConflictError):
    """The cart was checked out: it can no longer change. Start a new cart."""

    title = "Cart already checked out"


class EmptyCartError(CartError, kinds.ConflictError):
    """A checkout of a cart with no lines."""

    title = "Cart is empty"


class StaleVersionError(CartError, kinds.PreconditionFailedError):
    """If-Match named a version that is no longer current. The answer's ETag is the current one:
    reload the cart (or decide again with what you know) and send that as If-Match."""

    title = "Cart changed since you read it"

    def __init__(self, *, current: int, expected: int) -> None:
        super().__init__(f"The cart is at version {current}, not {expected}; reload it and try again.")
        self.current_version = current
        # What a client needs to try again is the version to pin: the ETag it reads on every cart answer.
        self.headers = {"ETag": f'"{current}"'}


class CheckoutInProgressError(CartError, kinds.ConflictError):
    """Another checkout of this cart holds the units this one needs: the same request still being placed
    (sent again before its first answer came), one from another device, or one that failed and whose units
    go back when its reservation expires. Send the checkout again in a moment: with the same Idempotency-Key
    it answers with the order the first placed; once the cart is checked out, another key gets 409."""

    title = "Checkout in progress"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.headers = {"Retry-After": "1"}


class ConcurrencyConflictError(CartError, kinds.ConflictError):
    """Retries ran out against concurrent writers."""

    title = "Cart is busy"


class IdempotencyKeyReusedError(CartError, kinds.UnprocessableError):
    """This Idempotency-Key was sent before with another request: use a new key for a new request."""

    title = "Idempotency-Key reused for a different request"
