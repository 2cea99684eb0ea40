"""Stock levels for staff: receive units or correct them; never a row edited in place.

The form's values become stock commands (`ReceiveStock`, `AdjustStock`), checked
by the stock decider while the form is validated (a refusal shows on the form)
and then handed to the handler, which appends the events and updates
`stock_levels` in the same transaction. Adding a stock level is receiving the
first units of a product: from then on it sells only what is in stock.
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
from .decider import decide, fold
from .handler import installed
from .models import StockLevel


class StockForm(forms.ModelForm):
    receive = forms.IntegerField(min_value=1, required=False, help_text="Units that arrived (StockReceived).")
    adjust_by = forms.IntegerField(
        required=False, help_text="A correction of the units on hand, up or down (StockAdjusted): a count, breakage."
    )
    reason = forms.CharField(required=False, max_length=200, help_text="Why, for an adjustment.")

    class Meta:
        model = StockLevel
        fields = ("sku",)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        if not self.commands:
            raise ValidationError("Receive some units, or adjust the units on hand.")
        if not installed().is_product(self.sku):  # the handler refuses it too; here it shows on the form
            raise ValidationError({"sku": f"There is no product with SKU {self.sku!r}."})
        state = installed().load(self.sku)
        for command in self.commands:
            try:
                state = fold(state, decide(state, command))
            except DomainError as refusal:
                field = {"quantity": "receive", "by": "adjust_by"}.get(refusal.field or "", refusal.field)
                raise ValidationError({field: refusal.detail} if field in self.fields else refusal.detail) from None
        return cleaned

    @property
    def sku(self) -> str:
        return str(self.instance.sku if not self.instance._state.adding else self.cleaned_data["sku"])

    @property
    def commands(self) -> list[c.StockCommand]:
        found: list[c.StockCommand] = []
        if received := self.cleaned_data.get("receive"):
            found.append(c.ReceiveStock(sku=self.sku, at=timezone.now(), quantity=received))
        if by := self.cleaned_data.get("adjust_by"):
            reason = self.cleaned_data.get("reason") or ""
            found.append(c.AdjustStock(sku=self.sku, at=timezone.now(), by=by, reason=reason))
        return found


@admin.register(StockLevel)
class StockLevelAdmin(admin.ModelAdmin):
    form = StockForm
    list_display = ("sku", "available", "on_hand", "reserved")
    search_fields = ("sku",)
    readonly_fields = ("on_hand", "reserved", "available")

    def get_readonly_fields(self, request: HttpRequest, obj: StockLevel | None = None) -> tuple[str, ...]:
        # The SKU names the product's stock stream.
        return ("sku", *self.readonly_fields) if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj: StockLevel | None = None) -> Any:
        shown = ["sku", "on_hand", "reserved", "available"] if obj is not None else ["sku"]
        return [*shown, "receive", "adjust_by", "reason"]

    def has_delete_permission(self, request: HttpRequest, obj: StockLevel | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: StockLevel, form: StockForm, change: bool) -> None:
        actor = str(Principal.user(str(request.user.pk)))
        for command in form.commands:
            installed().handle(command, actor=actor)
        # The row is the stock_levels view, written by the handler's projection, not by this form:
        # read it back, or the "added/changed successfully" message quotes the figures from before.
        obj.refresh_from_db()
