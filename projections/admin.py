"""The projections, read-only in the admin (they are rebuilt from the log)."""

from django.contrib import admin

from eventlog.admin import ReadOnlyAdmin

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
    list_display = ("order_id", "account", "total", "coupon", "placed_at")
    search_fields = ("order_id", "account", "cart_id")
