"""The projections, read-only in the admin (they are rebuilt from the log)."""

from django.contrib import admin

from eventlog.admin import ReadOnlyAdmin
from privacy.personal import reveal

from .models import CartView, OrderHistory, ProductActivity


@admin.register(CartView)
class CartViewAdmin(ReadOnlyAdmin):
    list_display = ("cart_id", "owner", "status", "item_count", "total", "version", "updated_at")
    list_filter = ("status",)
    search_fields = ("cart_id", "owner", "order_id")


@admin.register(ProductActivity)
class ProductActivityAdmin(ReadOnlyAdmin):
    list_display = ("sku", "times_added", "times_removed", "times_bought", "units_sold", "revenue")
    search_fields = ("sku",)


@admin.register(OrderHistory)
class OrderHistoryAdmin(ReadOnlyAdmin):
    list_display = ("order_id", "account", "total", "coupon", "ship_to", "placed_at")
    search_fields = ("order_id", "account", "cart_id")
    exclude = ("shipping",)  # the sealed box: staff see what it opens to, below
    readonly_fields = ("ship_to",)

    @admin.display(description="ship to")
    def ship_to(self, row: OrderHistory) -> str:
        """Opened at read time for the staff who fulfil the order; `[erased]` once the person is forgotten."""
        shipping = reveal(row.shipping)
        return "" if shipping is None else " / ".join(shipping.get(name, "") for name in ("name", "email", "address"))
