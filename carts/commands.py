"""What a shopper asks a cart to do, in the imperative.

Commands carry everything `decide` needs, so that it stays pure: the time, the
product as the catalog knows it now, a fresh order id.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from catalog.snapshot import ProductSnapshot


@dataclass(frozen=True, kw_only=True)
class CartCommand:
    cart_id: str
    at: datetime


@dataclass(frozen=True, kw_only=True)
class StartCart(CartCommand):
    owner: str


@dataclass(frozen=True, kw_only=True)
class AddToCart(CartCommand):
    sku: str
    quantity: int
    product: ProductSnapshot | None  # None: the SKU is not in the catalog


@dataclass(frozen=True, kw_only=True)
class UpdateCartQuantity(CartCommand):
    sku: str
    quantity: int


@dataclass(frozen=True, kw_only=True)
class RemoveFromCart(CartCommand):
    sku: str


@dataclass(frozen=True, kw_only=True)
class ChangeCartOwner(CartCommand):
    new_owner: str


@dataclass(frozen=True, kw_only=True)
class Discount:
    """A coupon the checkout may apply; for a one-time coupon, its claim was accepted."""

    MIN_PERCENT: ClassVar[int] = 1
    MAX_PERCENT: ClassVar[int] = 100  # more would make the order's total negative

    code: str
    percent: int

    def __post_init__(self) -> None:
        if not self.MIN_PERCENT <= self.percent <= self.MAX_PERCENT:
            raise ValueError(f"a discount is {self.MIN_PERCENT}-{self.MAX_PERCENT} %, not {self.percent} %")


@dataclass(frozen=True, kw_only=True)
class Checkout(CartCommand):
    order_id: str
    discount: Discount | None = None
    shipping: dict[str, Any] | None = None  # sealed for the person (privacy/sealing.py), never in clear
    # The SKUs the catalog no longer sells, as the caller read them (catalog/queries.py: withdrawn):
    # a cart holding one is not checked out.
    withdrawn: frozenset[str] = frozenset()
