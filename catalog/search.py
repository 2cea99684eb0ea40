"""Searching the index `product_search` keeps: SKUs of active products, best match first.

Name counts most, then category and SKU, then description. PostgreSQL ranks
its full-text document with `ts_rank` (weights A > B > C, each word a prefix:
"grind" finds "grinder"); SQLite scores the same fields by word prefix in
Python, over the rows a LIKE prefilter leaves. A SKU that begins with the whole
text ("kit-00") ranks above every other match, on both.
"""

import re

from django.db import connections

from .models import Product
from .search_index import TABLE

WORD = re.compile(r"\w+")
# SQLite's weights per field a word matches: the order ts_rank's A, B, C weights give.
WEIGHTS = {"name": 4, "category": 2, "sku": 2, "description": 1}
# A SKU that begins with the whole text ("kit-00") comes first: whoever types a SKU means that product.
SKU_BONUS = 100.0


def search(text: str, *, category: str = "", using: str = "default") -> list[str]:
    words = [w.lower() for w in WORD.findall(text)][:10]
    if not words:
        return []
    if connections[using].vendor == "postgresql":
        return _postgres(text.strip(), words, category, using)
    return _sqlite(text.strip(), words, category, using)


def matching_products(text: str, *, category: str = "") -> list[Product]:
    """The products `search` finds, in its order, as the product table has them."""
    skus = search(text, category=category)
    rows = Product.objects.in_bulk(skus)
    return [rows[sku] for sku in skus if sku in rows]


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _prefix(text: str) -> str:
    """A LIKE pattern for SKUs that begin with `text`, upper-cased as SKUs are written."""
    return _escaped(text.upper()) + "%"


def _like(text: str) -> str:
    return "%" + _escaped(text) + "%"


def _postgres(text: str, words: list[str], category: str, using: str) -> list[str]:
    query = " & ".join(f"{word}:*" for word in words)
    sql = (
        "SELECT sku FROM (SELECT sku, name, category, ts_rank(document, query)"
        " + CASE WHEN upper(sku) LIKE %s THEN 10 ELSE 0 END AS score"  # above any ts_rank (at most 1)
        f" FROM {TABLE}, to_tsquery('english', %s) AS query"
        # Both arms can use an index (GIN on document, upper(sku) text_pattern_ops): a bitmap OR.
        " WHERE active AND (document @@ query OR upper(sku) LIKE %s)) AS found"
        " WHERE %s = '' OR category = %s ORDER BY score DESC, name, sku"
    )
    with connections[using].cursor() as cursor:
        cursor.execute(sql, [_prefix(text), query, _prefix(text), category, category])
        return [sku for (sku,) in cursor.fetchall()]


def _sqlite(text: str, words: list[str], category: str, using: str) -> list[str]:
    haystack = "(name || ' ' || category || ' ' || sku || ' ' || description)"
    every_word = " AND ".join([f"{haystack} LIKE %s ESCAPE '\\'"] * len(words))
    sql = (
        f"SELECT sku, name, category, description FROM {TABLE}"
        f" WHERE active AND (%s = '' OR category = %s) AND (({every_word}) OR sku LIKE %s ESCAPE '\\')"
    )
    with connections[using].cursor() as cursor:
        cursor.execute(sql, [category, category, *(_like(w) for w in words), _prefix(text)])
        rows = cursor.fetchall()
    ranked = sorted(((_score(words, text, row), row[1], row[0]) for row in rows), key=lambda r: (-r[0], r[1], r[2]))
    return [sku for score, _, sku in ranked if score > 0]


def _score(words: list[str], text: str, row: tuple[str, str, str, str]) -> float:
    """Every word must begin a word of some field; each adds the weight of every field it begins."""
    sku, name, category, description = row
    fields = {"name": name, "category": category, "sku": sku, "description": description}
    total = 0.0
    for word in words:
        hits = [WEIGHTS[f] for f, value in fields.items() if re.search(rf"\b{re.escape(word)}", value.lower())]
        if not hits:
            return SKU_BONUS if sku.lower().startswith(text.lower()) else 0.0
        total += sum(hits)
    return total + (SKU_BONUS if sku.lower().startswith(text.lower()) else 0)
