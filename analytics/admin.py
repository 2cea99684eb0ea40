"""The Spark tables, read-only in the admin: the next pipeline run replaces them."""

from django.contrib import admin

from eventlog.admin import ReadOnlyAdmin

from . import models

for model in (
    models.Summary,
    models.FunnelDay,
    models.RevenueDay,
    models.ProductStats,
    models.CheckoutTime,
    models.HourlyActivity,
    models.SessionDay,
    models.Recommendation,
):
    admin.site.register(model, ReadOnlyAdmin)
