"""Products and coupons. The catalog is reference data edited by staff; carts
copy the price into `ItemAdded` at the moment of adding, so later price changes
never rewrite history.
"""

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
    percent = models.PositiveSmallIntegerField()
    once = models.BooleanField(default=False, help_text="One-time: claimed at checkout, usable once.")
    active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.code} ({self.percent}%{' once' if self.once else ''})"
