"""Why a catalog command is refused (kinds from kernel.errors)."""

from kernel.errors import ConflictError, InvalidInputError, NotFoundError


class ProductNotFoundError(NotFoundError):
    title = "Product not found"


class ProductAlreadyListedError(ConflictError):
    title = "Product already listed"


class InvalidProductError(InvalidInputError):
    title = "Invalid product"
