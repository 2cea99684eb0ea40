"""`product_search`: the search index, a second projection of the product streams.

Like an index fed from a topic, it never reads the product table: each event
writes the fields it carries into `catalog_product_search` (PostgreSQL derives
the weighted tsvector from them). Applied inline with `products`.
"""

from collections.abc import Sequence
from typing import Any

from django.db import connections

from eventlog.records import RecordedEvent

from . import events as e
from .streams import CATEGORY

NAME = "product_search"
VERSION = 1
TABLE = "catalog_product_search"
KEY = "sku"
CATEGORIES: tuple[str, ...] = (CATEGORY,)


def apply(
    events: Sequence[RecordedEvent],
    table: str = TABLE,
    *,
    using: str = "default",
) -> None:
    with connections[using].cursor() as cursor:
        for record in events:
            for sql, params in statements(record.domain_event, table):
                cursor.execute(sql, params)


def statements(event: object, table: str) -> list[tuple[str, list[Any]]]:
    match event:
        case e.ProductListed(sku=sku, name=name, description=description, category=category):
            return [
                (
                    f"INSERT INTO {table} (sku, name, category, description, active) VALUES (%s, %s, %s, %s, %s)"
                    " ON CONFLICT (sku) DO UPDATE SET name = excluded.name, category = excluded.category,"
                    " description = excluded.description, active = excluded.active",
                    [sku, name, category, description, True],
                )
            ]
        case e.ProductDescribed(sku=sku, name=name, description=description):
            return [(f"UPDATE {table} SET name = %s, description = %s WHERE sku = %s", [name, description, sku])]
        case e.ProductRecategorized(sku=sku, to_category=category):
            return [(f"UPDATE {table} SET category = %s WHERE sku = %s", [category, sku])]
        case e.ProductWithdrawn(sku=sku) | e.ProductRelisted(sku=sku):
            active = isinstance(event, e.ProductRelisted)
            return [(f"UPDATE {table} SET active = %s WHERE sku = %s", [active, sku])]
    return []
