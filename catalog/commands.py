"""What staff and the seed ask of the catalog, in the imperative. Each carries its time."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal


@dataclass(frozen=True, kw_only=True)
class ListProduct:
    sku: str
    at: datetime
    name: str
    description: str
    category: str
    price: Decimal
    active: bool = True  # False: listed and withdrawn at once (a discontinued product kept for old carts)


@dataclass(frozen=True, kw_only=True)
class EditProduct:
    """The product as staff want it from now on; None leaves a field as it is.

    The decider appends one event per kind of change, and none for a field
    that already has that value: saving an unchanged form appends nothing."""

    sku: str
    at: datetime
    name: str | None = None
    description: str | None = None
    category: str | None = None
    price: Decimal | None = None
    active: bool | None = None


ProductCommand = ListProduct | EditProduct
