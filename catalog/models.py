"""The catalog's tables. `Product` and `SearchEntry` are projections of the
product streams (`catalog/projection.py`, `catalog/search_index.py`), written
only by them; carts copy the price into `ItemAdded` at the moment of adding, so
a later `PriceChanged` never rewrites history. Coupons are plain reference data.
"""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class Product(models.Model):
    sku = models.CharField(max_length=40, primary_key=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    category = models.CharField(max_length=80, db_index=True)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["category", "name"]

    def __str__(self) -> str:
        return f"{self.sku} {self.name}"


class Coupon(models.Model):
    code = models.CharField(max_length=40, primary_key=True)
    # 1-100, the range of carts.commands.Discount (written out: catalog is below carts): over 100 % an
    # order's total would be negative.
    percent = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(100)])
    once = models.BooleanField(default=False, help_text="One-time: claimed at checkout, usable once.")
    active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.code} ({self.percent}%{' once' if self.once else ''})"


class SearchEntry(models.Model):
    """The search index (`catalog/search_index.py`): one row per product, derived from its events.

    On PostgreSQL the table also has `document`, a weighted tsvector generated
    from these columns, with a GIN index (migration 0002); SQLite ranks these
    columns directly (`catalog/search.py`)."""

    sku = models.CharField(max_length=40, primary_key=True)
    name = models.CharField(max_length=200)
    category = models.CharField(max_length=80)
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)

    class Meta:
        verbose_name_plural = "search entries"
        db_table = "catalog_product_search"
