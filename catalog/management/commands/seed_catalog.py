"""`python manage.py seed_catalog`: load the demo catalog and coupons (idempotent)."""

from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand

from catalog.models import Coupon, Product
from catalog.seed_data import COUPONS, INACTIVE, PRODUCTS


class Command(BaseCommand):
    help = "Load the demo catalog and coupons. Running it again updates, never duplicates."

    def handle(self, *args: Any, **options: Any) -> None:
        for sku, name, category, price, description in PRODUCTS:
            Product.objects.update_or_create(
                sku=sku,
                defaults={
                    "name": name,
                    "category": category,
                    "price": Decimal(price),
                    "description": description,
                    "active": sku not in INACTIVE,
                },
            )
        for code, percent, once in COUPONS:
            Coupon.objects.update_or_create(code=code, defaults={"percent": percent, "once": once})
        self.stdout.write(f"catalog: {len(PRODUCTS)} products, {len(COUPONS)} coupons")
