"""The search index derived from the product events: ranked, on both backends.

Expected orders are written by hand from the rule: a word in the name ranks
above one in the category or SKU, which ranks above one in the description;
more matching fields rank higher; ties go by name; a SKU that contains the
whole text comes first. PostgreSQL ranks with ts_rank over the weighted
tsvector, SQLite with its fallback: the same orders on both.
"""

from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client

from catalog import services
from catalog.search import search

pytestmark = pytest.mark.django_db

PRODUCTS = [
    ("GRN-001", "Burr Coffee Grinder", "Kitchen", "Grinds coffee beans evenly."),  # name + description
    ("BOK-004", "The Coffee Roaster's Companion", "Books", "Roasting from green bean to cup."),  # name
    ("COF-001", "Ethiopian Beans 250g", "Coffee", "Light roast with jasmine."),  # category
    ("KIT-002", "Paper Filters", "Kitchen", "For pour-over coffee."),  # description
    ("KIT-001", "Pour-Over Dripper", "Kitchen", "Ceramic cone."),  # no coffee at all
]


@pytest.fixture
def shelf() -> None:
    for sku, name, category, description in PRODUCTS:
        services.list_product(sku, name=name, category=category, description=description, price=Decimal("10.00"),
                              actor="test")  # fmt: skip
    services.list_product("OLD-001", name="Coffee Tin", category="Coffee", price=Decimal("3.00"), active=False,
                          actor="test")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("coffee", ["GRN-001", "BOK-004", "COF-001", "KIT-002"]),
        ("pour coffee", ["KIT-002"]),  # every word must match somewhere: the dripper has no coffee
        ("grind", ["GRN-001"]),  # a word's start finds "Grinder" and "Grinds"
        ("kitchen", ["GRN-001", "KIT-002", "KIT-001"]),  # a tie in the category: by name
        ("cof-00", ["COF-001", "GRN-001", "BOK-004", "KIT-002"]),  # the SKU that begins with it first
        ("kit-001", ["KIT-001", "GRN-001"]),  # then a Kitchen product whose SKU has a word starting 001
        ("tin", []),  # only a withdrawn product has it
        ("---", []),
    ],
)
def test_search_ranks_name_above_category_and_sku_above_description(
    shelf: None, text: str, expected: list[str]
) -> None:
    assert search(text) == expected


def test_search_within_a_category(shelf: None) -> None:
    assert search("coffee", category="Kitchen") == ["GRN-001", "KIT-002"]


def test_the_index_follows_later_events_of_the_product(shelf: None) -> None:
    services.recategorize("KIT-001", "Coffee Gear", actor="test")
    services.edit_product("BOK-004", name="The Roaster's Companion", actor="test")
    services.withdraw("GRN-001", actor="test")
    services.edit_product("OLD-001", active=True, actor="test")

    assert search("coffee") == ["OLD-001", "COF-001", "KIT-001", "KIT-002"]


def test_the_api_lists_products_matching_q_best_first(shelf: None, client: Client) -> None:
    found = client.get("/api/products", {"q": "coffee"}).json()
    assert [p["sku"] for p in found] == ["GRN-001", "BOK-004", "COF-001", "KIT-002"]
    assert [p["sku"] for p in client.get("/api/products", {"q": "coffee", "category": "Books"}).json()] == ["BOK-004"]


def test_the_shop_shows_search_results_best_first(shelf: None, client: Client) -> None:
    page = client.get("/", {"q": "coffee"}).content.decode()
    names = ["Burr Coffee Grinder", "The Coffee Roaster&#x27;s Companion", "Ethiopian Beans 250g", "Paper Filters"]
    assert [page.index(name) for name in names] == sorted(page.index(name) for name in names)
    assert "Pour-Over Dripper" not in page and "4 products matching" in page


@pytest.mark.postgres
def test_on_postgresql_the_index_is_a_weighted_tsvector_with_a_gin_index_and_a_sku_prefix_index(shelf: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT document::text FROM catalog_product_search WHERE sku = 'KIT-001'")
        (document,) = cursor.fetchone()
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'catalog_product_search' ORDER BY 1")
        indexes = " | ".join(definition for (definition,) in cursor.fetchall())
    assert "'dripper':4A" in document and "'kitchen':5B" in document and "'ceram':10C" in document
    assert "USING gin (document)" in indexes and "(upper((sku)::text) text_pattern_ops)" in indexes
