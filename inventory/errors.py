"""Why a stock command is refused (kinds from kernel.errors)."""

from kernel.errors import ConflictError, InvalidInputError


class InvalidStockError(InvalidInputError):
    title = "Invalid stock change"


class OutOfStockError(ConflictError):
    """Fewer units available than a checkout asks for: the cart stays open."""

    title = "Out of stock"
    field = "lines"

    def __init__(self, detail: str, *, sku: str, available: int) -> None:
        super().__init__(detail)
        self.sku, self.available = sku, available
        self.problem_members = {"sku": sku, "available": available}  # RFC 9457 extension members


class ReservationLostError(ConflictError):
    """The reservation ran out and was released before its order was placed."""

    title = "Reservation expired"
