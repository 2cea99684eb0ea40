"""Reads of the catalog that the command layer needs."""

from decimal import Decimal

from django.db import connection

from .models import Product
from .snapshot import ProductSnapshot

CENT = Decimal("0.01")  # Product.price has two decimal places


def product_snapshot(sku: str) -> ProductSnapshot | None:
    # Every AddToCart asks this; plain SQL skips the ORM's query building, which
    # cost more than the query itself (docs/benchmarks.md, section commands).
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT price, active FROM {Product._meta.db_table} WHERE sku = %s", [sku])
        row = cursor.fetchone()
    if row is None:
        return None
    price, active = row
    return ProductSnapshot(sku=sku, price=_money(price), active=bool(active))


def _money(value: object) -> Decimal:
    """SQLite hands a decimal column back as a float or an int; PostgreSQL as a Decimal."""
    return Decimal(str(value)).quantize(CENT)


def product_names(skus: list[str]) -> dict[str, str]:
    """Names for a cart's lines; every cart response asks, so plain SQL as above."""
    if not skus:
        return {}
    placeholders = ", ".join(["%s"] * len(skus))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT sku, name FROM {Product._meta.db_table} WHERE sku IN ({placeholders})", list(skus))
        return dict(cursor.fetchall())
