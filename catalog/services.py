"""The catalog's commands as functions: what the admin, `seed_catalog` and tests call.

Each builds a command with the time and hands it to the installed handler
(`catalog/handler.py`); `actor` is who asks (`user:<id>` for staff, a process
name such as `seed_catalog`).
"""

from decimal import Decimal

from django.utils import timezone

from . import commands as c
from .handler import Outcome, installed
from .models import Product


def list_product(
    sku: str, *, name: str, category: str, price: Decimal, description: str = "", active: bool = True, actor: str
) -> Outcome:
    command = c.ListProduct(
        sku=sku,
        at=timezone.now(),
        name=name,
        description=description,
        category=category,
        price=price,
        active=active,
    )
    return installed().handle(command, actor=actor)


def edit_product(
    sku: str,
    *,
    actor: str,
    name: str | None = None,
    description: str | None = None,
    category: str | None = None,
    price: Decimal | None = None,
    active: bool | None = None,
) -> Outcome:
    """Append what differs from the product as its stream has it (nothing, if nothing does)."""
    command = c.EditProduct(
        sku=sku, at=timezone.now(), name=name, description=description, category=category, price=price, active=active
    )
    return installed().handle(command, actor=actor)


def change_price(sku: str, price: Decimal, *, actor: str) -> Outcome:
    return edit_product(sku, price=price, actor=actor)


def recategorize(sku: str, category: str, *, actor: str) -> Outcome:
    return edit_product(sku, category=category, actor=actor)


def withdraw(sku: str, *, actor: str) -> Outcome:
    return edit_product(sku, active=False, actor=actor)


def is_listed(sku: str) -> bool:
    return installed().load(sku).listed


def list_existing_products(*, actor: str) -> list[str]:
    """Give every product row that predates the log its `ProductListed` (and
    `ProductWithdrawn` if inactive), as the row is; products already on the log
    are left alone, so running it again appends nothing. The SKUs it listed."""
    listed = []
    for product in Product.objects.order_by("sku"):
        if is_listed(product.sku):
            continue
        list_product(
            product.sku,
            name=product.name,
            category=product.category,
            price=product.price,
            description=product.description,
            active=product.active,
            actor=actor,
        )
        listed.append(product.sku)
    return listed
