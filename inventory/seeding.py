"""The demo's stock, a step of `seed_catalog` (handed in by `cartlog.bootstrap` through `catalog.seeding.add_step`).

Only products without a stock stream get one, so seeding twice appends nothing
and never undoes what staff received or sold since."""

from .models import StockLevel
from .services import receive_stock

# One product low on purpose, so the shop shows "Only N left" from the start (and "Out of stock" soon).
DEMO_STOCK = {"TEA-003": 3}
DEFAULT_UNITS = 50


def stock_demo_products(skus: list[str]) -> str:
    stocked = 0
    for sku in skus:
        if StockLevel.objects.filter(sku=sku).exists():
            continue
        receive_stock(sku, DEMO_STOCK.get(sku, DEFAULT_UNITS), actor="seed_catalog")
        stocked += 1
    return f"{stocked} products stocked"
