"""Products and coupons, editable by staff.

NOTE: saving a product here is a plain table edit today: no event records it, so
the log cannot tell when a price changed (carts keep the price they copied into
ItemAdded, so no cart changes). A later issue makes catalog changes events; this
admin should then send those commands instead of saving the row.
"""

from django.contrib import admin

from .models import Coupon, Product


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ("sku", "name", "category", "price", "active")
    list_filter = ("active", "category")
    list_editable = ("price", "active")
    search_fields = ("sku", "name")


@admin.register(Coupon)
class CouponAdmin(admin.ModelAdmin):
    list_display = ("code", "percent", "once", "active")
    list_filter = ("active", "once")
    search_fields = ("code",)
