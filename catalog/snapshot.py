"""A product as the catalog knows it at one moment: what a cart command carries.

Django-free, so the cart's pure decider can use it without the catalog's tables.
"""

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True, kw_only=True)
class ProductSnapshot:
    """The catalog's view of a product at the moment of the command."""

    sku: str
    price: Decimal
    active: bool
