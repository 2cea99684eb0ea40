"""Top-level routes: the REST API under /api/, the staff pages and the admin, the web shop everywhere else."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("api.urls")),
    path("staff/rebuilds/", include("rebuilds.urls")),
    path("staff/analytics/", include("analytics.urls")),
    path("staff/lab/", include("lab.urls")),  # the fault lab (docs/fault-lab.md), when LAB_ENABLED
    path("admin/", admin.site.urls),  # staff only: products and coupons, read models read-only
    path("", include("ops.urls")),  # /metrics, /health/live, /health/ready
    path("", include("shop.urls")),
]

handler400 = "api.problems.bad_request"
handler404 = "api.problems.not_found"
handler500 = "cartlog.outage.server_error"  # 503 while the database is away, else api.problems
