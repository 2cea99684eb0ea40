"""Reads of the catalog that the command layer needs."""

from carts.commands import ProductSnapshot

from .models import Product


def product_snapshot(sku: str) -> ProductSnapshot | None:
    product = Product.objects.filter(sku=sku).only("sku", "price", "active").first()
    if product is None:
        return None
    return ProductSnapshot(sku=product.sku, price=product.price, active=product.active)


def product_names(skus: list[str]) -> dict[str, str]:
    return dict(Product.objects.filter(sku__in=skus).values_list("sku", "name"))
