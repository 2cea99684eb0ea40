"""Products and coupons, editable by staff.

A product is never saved as a row here: the form's values become a catalog
command (`ListProduct` or `EditProduct`), checked by the product's decider
while the form is validated (a refusal shows on the form) and then handed to
the handler, which appends the events and updates the product table and the
search index in the same transaction. Deleting is withdrawing (untick Active):
old carts still name the product. Coupons stay plain rows.
"""

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils import timezone

from kernel.errors import DomainError
from kernel.principal import Principal

from . import commands as c
from .decider import decide
from .handler import installed
from .models import Coupon, Product

FIELDS = ("sku", "name", "description", "category", "price", "active")


class ProductForm(forms.ModelForm):
    class Meta:
        model = Product
        fields = FIELDS

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors:
            try:
                decide(installed().load(self.command.sku), self.command)
            except DomainError as refusal:
                field = refusal.field if refusal.field in self.fields else None
                raise ValidationError({field: refusal.detail} if field else refusal.detail) from None
        return cleaned

    @property
    def command(self) -> c.ProductCommand:
        """The form as a catalog command: a new product is listed, an existing one edited."""
        values = {f: self.cleaned_data[f] for f in FIELDS if f in self.cleaned_data}
        if self.instance._state.adding:
            return c.ListProduct(at=timezone.now(), **{"description": "", **values})
        return c.EditProduct(at=timezone.now(), **{**values, "sku": self.instance.sku})


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    form = ProductForm
    list_display = ("sku", "name", "category", "price", "active")
    list_filter = ("active", "category")
    list_editable = ("price", "active")
    search_fields = ("sku", "name")

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any) -> type[forms.ModelForm]:
        return super().get_changelist_form(request, form=ProductForm, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Product | None = None) -> tuple[str, ...]:
        return ("sku",) if obj is not None else ()  # the SKU names the product's stream

    def has_delete_permission(self, request: HttpRequest, obj: Product | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Product, form: ProductForm, change: bool) -> None:
        installed().handle(form.command, actor=str(Principal.user(str(request.user.pk))))


class CouponForm(forms.ModelForm):
    class Meta:
        model = Coupon
        fields = ("code", "percent", "once", "active")

    def clean_code(self) -> str:
        """The code as `create_coupon` writes it (upper case), and unique whatever its case: a checkout
        finds a coupon by its code in any case, so `once10` beside `ONCE10` made one of them unreachable."""
        code = str(self.cleaned_data["code"]).strip().upper()
        if not code or not code.replace("-", "").replace("_", "").isalnum():
            raise ValidationError("A coupon code holds letters, digits, - and _ only.")
        taken = Coupon.objects.filter(code__iexact=code).exclude(pk=self.instance.pk).first()
        if taken is not None:
            raise ValidationError(f"There is already a coupon {taken.code}; edit it instead.")
        return code


@admin.register(Coupon)
class CouponAdmin(admin.ModelAdmin):
    form = CouponForm
    list_display = ("code", "percent", "once", "active")
    list_filter = ("active", "once")
    search_fields = ("code",)

    def get_readonly_fields(self, request: HttpRequest, obj: Coupon | None = None) -> tuple[str, ...]:
        # The code is the row's key and names the coupon's claims: a new code is a new coupon.
        return ("code",) if obj is not None else ()
