"""Facts about a product on its stream `product-<sku>`, in the past tense.

The product table and the search index are projections of these; every event
carries its `sku` so a reader needs no stream-name parsing.
"""

from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from eventlog.registry import EventType, describe


@dataclass(frozen=True, kw_only=True)
class ProductEvent:
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1
    sku: str


@dataclass(frozen=True, kw_only=True)
class ProductListed(ProductEvent):
    """A product put in the catalog, on sale at `price`."""

    TYPE = "ProductListed"
    name: str
    description: str
    category: str
    price: Decimal


@dataclass(frozen=True, kw_only=True)
class PriceChanged(ProductEvent):
    """The price from now on; carts keep the price their ItemAdded copied."""

    TYPE = "PriceChanged"
    from_price: Decimal
    to_price: Decimal


@dataclass(frozen=True, kw_only=True)
class ProductDescribed(ProductEvent):
    """A new name and/or description (both given, as they are from now on)."""

    TYPE = "ProductDescribed"
    name: str
    description: str


@dataclass(frozen=True, kw_only=True)
class ProductRecategorized(ProductEvent):
    """The product moved to another category."""

    TYPE = "ProductRecategorized"
    from_category: str
    to_category: str


@dataclass(frozen=True, kw_only=True)
class ProductWithdrawn(ProductEvent):
    """Taken off sale: it stays in the catalog (old carts name it) but cannot be added, nor checked out."""

    TYPE = "ProductWithdrawn"


@dataclass(frozen=True, kw_only=True)
class ProductRelisted(ProductEvent):
    """A withdrawn product back on sale."""

    TYPE = "ProductRelisted"


EVENT_CLASSES: dict[str, type[ProductEvent]] = {
    cls.TYPE: cls
    for cls in (ProductListed, PriceChanged, ProductDescribed, ProductRecategorized, ProductWithdrawn, ProductRelisted)
}


def event_types() -> list[EventType]:
    """The registry entries for the product streams (the event catalog is generated from these)."""
    return describe(EVENT_CLASSES.values(), category="product")
