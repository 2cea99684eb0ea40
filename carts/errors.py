"""Why a cart command is refused. Each error says it in words a shopper understands,
and is of one kind from `kernel.errors` (the web layer maps kinds to HTTP statuses).
"""

from kernel import errors as kinds


class CartError(kinds.DomainError):
    """A cart command was rejected; nothing was appended."""

    title = "Cart command rejected"


class InvalidQuantityError(CartError, kinds.InvalidInputError):
    title = "Invalid quantity"
    field = "quantity"


class UnknownProductError(CartError, kinds.InvalidInputError):
    title = "Unknown product"
    field = "sku"


class InactiveProductError(CartError, kinds.InvalidInputError):
    title = "Product not available"
    field = "sku"


class ProductWithdrawnError(CartError, kinds.ConflictError):
    """A line of the cart is a product the catalog no longer sells (checkout)."""

    title = "Product no longer available"
    field = "sku"


class ItemNotInCartError(CartError, kinds.NotFoundError):
    title = "Item not in cart"


class TooManyLinesError(CartError, kinds.ConflictError):
    title = "Too many different products"


class CartNotFoundError(CartError, kinds.NotFoundError):
    title = "Cart not found"


class CartAlreadyExistsError(CartError, kinds.ConflictError):
    title = "Cart already exists"


class CartCheckedOutError(CartError, kinds.ConflictError):
    title = "Cart already checked out"


class EmptyCartError(CartError, kinds.ConflictError):
    title = "Cart is empty"


class StaleVersionError(CartError, kinds.PreconditionFailedError):
    """If-Match named a version that is no longer current."""

    title = "Cart changed since you read it"


class ConcurrencyConflictError(CartError, kinds.ConflictError):
    """Retries ran out against concurrent writers."""

    title = "Cart is busy"


class IdempotencyKeyReusedError(CartError, kinds.UnprocessableError):
    title = "Idempotency-Key reused for a different request"
