"""`StockLevel`: the `stock_levels` view (`inventory/projection.py`), written only by it.

A product without a row has no stock stream and sells without limit."""

from django.db import models


class StockLevel(models.Model):
    sku = models.CharField(max_length=40, primary_key=True)
    on_hand = models.IntegerField(default=0)
    reserved = models.IntegerField(default=0)
    available = models.IntegerField(default=0)
    version = models.PositiveIntegerField(default=0)  # of stock-<sku>: an event at or below it is applied already

    class Meta:
        db_table = "inventory_stock_level"

    def __str__(self) -> str:
        return f"{self.sku}: {self.available} available ({self.on_hand} on hand, {self.reserved} reserved)"
