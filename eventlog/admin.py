"""The admin's read-only base for read models.

A read model (a projection, a Spark table, the claims projection) is derived from
the log and rebuilt from it; a row edited by hand would disagree with the log and
be overwritten by the next rebuild, so the admin only shows them.
"""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """Staff may look; nobody may add, change or delete (the view permission stays)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)
