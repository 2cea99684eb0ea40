"""The claims projection, read-only in the admin (the validator decides claims, not staff)."""

from django.contrib import admin

from eventlog.admin import ReadOnlyAdmin

from .models import Claim


@admin.register(Claim)
class ClaimAdmin(ReadOnlyAdmin):
    list_display = ("claim_id", "kind", "key", "claimant", "status", "reason")
    list_filter = ("kind", "status")
    search_fields = ("claim_id", "key")
