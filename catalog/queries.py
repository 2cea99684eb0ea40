"""Reads of the catalog that the command layer and every cart response need.

Every AddToCart asks for a product's price and every cart response for its lines'
names, so both come from `PRODUCTS`, a per-process cache of the catalog's rows
that is dropped whenever a product event is announced (kernel/fresh_cache.py: on
PostgreSQL, where the LISTEN session feeds it; elsewhere it always reads). A price
read a few milliseconds before a change's notification arrives is what the command
would have read had it come a moment earlier: the read was never in the command's
transaction. The queries are plain SQL: the ORM's query building cost more than
the query itself (docs/benchmarks.md, section commands).
"""

from dataclasses import dataclass
from decimal import Decimal

from django.db import connection

from kernel.fresh_cache import FreshCache

from .models import Product
from .snapshot import ProductSnapshot
from .streams import CATEGORY

CENT = Decimal("0.01")  # Product.price has two decimal places


@dataclass(frozen=True)
class ProductRow:
    name: str
    price: Decimal
    active: bool


PRODUCTS: FreshCache[str, ProductRow] = FreshCache(kinds=[CATEGORY])


def _load(skus: list[str]) -> dict[str, ProductRow]:
    placeholders = ", ".join(["%s"] * len(skus))
    sql = f"SELECT sku, name, price, active FROM {Product._meta.db_table} WHERE sku IN ({placeholders})"
    with connection.cursor() as cursor:
        cursor.execute(sql, skus)
        return {sku: ProductRow(name, _money(price), bool(active)) for sku, name, price, active in cursor.fetchall()}


def product_snapshot(sku: str) -> ProductSnapshot | None:
    row = PRODUCTS.get_many([sku], _load).get(sku)
    return None if row is None else ProductSnapshot(sku=sku, price=row.price, active=row.active)


def withdrawn() -> frozenset[str]:
    """The SKUs taken off sale (a checkout refuses a cart holding one): a few rows, read per checkout."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT sku FROM {Product._meta.db_table} WHERE NOT active")
        return frozenset(sku for (sku,) in cursor.fetchall())


def _money(value: object) -> Decimal:
    """SQLite hands a decimal column back as a float or an int; PostgreSQL as a Decimal."""
    return Decimal(str(value)).quantize(CENT)


def product_names(skus: list[str]) -> dict[str, str]:
    """A name for each of `skus`, as a cart's or an order's lines show them: the catalog's, or the SKU
    itself for one the catalog no longer holds (a line outlives its product; it is never left blank)."""
    if not skus:
        return {}
    rows = PRODUCTS.get_many(skus, _load)
    return {sku: rows[sku].name if sku in rows else sku for sku in skus}
