"""`products`: the product table (`catalog.models.Product`) as a projection of the product streams.

Applied inline by the catalog's handler, in the transaction of the append, so
the shop, the API and the cart commands (`catalog/queries.py`) read what the
log says the moment it says it. Each event sets fields to the values it
carries, so applying one twice changes nothing.
"""

from collections.abc import Sequence
from typing import Any

from django.db import connections

from eventlog.records import RecordedEvent

from . import events as e
from .queries import PRODUCTS
from .streams import CATEGORY

NAME = "products"
VERSION = 1
TABLE = "catalog_product"
KEY = "sku"
CATEGORIES: tuple[str, ...] = (CATEGORY,)


def apply(
    events: Sequence[RecordedEvent],
    table: str = TABLE,
    *,
    using: str = "default",
) -> None:
    if table == TABLE:
        PRODUCTS.clear()  # this process sees its own change at once; others when the append's NOTIFY arrives
    with connections[using].cursor() as cursor:
        for record in events:
            for sql, params in statements(record.domain_event, table):
                cursor.execute(sql, params)


def statements(event: object, table: str) -> list[tuple[str, list[Any]]]:
    match event:
        case e.ProductListed(sku=sku, name=name, description=description, category=category, price=price):
            return [
                (
                    f"INSERT INTO {table} (sku, name, description, category, price, active)"
                    " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (sku) DO UPDATE SET name = excluded.name,"
                    " description = excluded.description, category = excluded.category, price = excluded.price,"
                    " active = excluded.active",
                    [sku, name, description, category, str(price), True],
                )
            ]
        case e.ProductDescribed(sku=sku, name=name, description=description):
            return [(f"UPDATE {table} SET name = %s, description = %s WHERE sku = %s", [name, description, sku])]
        case e.ProductRecategorized(sku=sku, to_category=category):
            return [(f"UPDATE {table} SET category = %s WHERE sku = %s", [category, sku])]
        case e.PriceChanged(sku=sku, to_price=price):
            return [(f"UPDATE {table} SET price = %s WHERE sku = %s", [str(price), sku])]
        case e.ProductWithdrawn(sku=sku) | e.ProductRelisted(sku=sku):
            active = isinstance(event, e.ProductRelisted)
            return [(f"UPDATE {table} SET active = %s WHERE sku = %s", [active, sku])]
    return []
