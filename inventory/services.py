"""Stock commands as functions (what `receive_stock`, the admin and the seed call), and what the shop reads.

Each builds a command with the time and hands it to the installed handler
(`inventory/handler.py`); `actor` is who asks (`user:<id>` for staff, a process
name such as `seed_catalog`).
"""

from collections.abc import Iterable

from django.utils import timezone

from . import commands as c
from .handler import Outcome, installed
from .models import StockLevel


def receive_stock(sku: str, quantity: int, *, actor: str) -> Outcome:
    return installed().handle(c.ReceiveStock(sku=sku, at=timezone.now(), quantity=quantity), actor=actor)


def adjust_stock(sku: str, by: int, reason: str, *, actor: str) -> Outcome:
    return installed().handle(c.AdjustStock(sku=sku, at=timezone.now(), by=by, reason=reason), actor=actor)


def available(skus: Iterable[str]) -> dict[str, int]:
    """Units available now per SKU, from `stock_levels`; a SKU left out has no stock stream: no limit."""
    rows = StockLevel.objects.filter(sku__in=list(skus)).values_list("sku", "available")
    return {sku: max(units, 0) for sku, units in rows}


def available_one(sku: str) -> int | None:
    """Units available now, or None: the product sells without limit."""
    return available([sku]).get(sku)
