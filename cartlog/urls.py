"""Top-level routes: the REST API under /api/, the web shop everywhere else."""

from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from cartlog import problems

api: list[URLPattern | URLResolver] = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("", include("accounts.api.urls")),
    path("", include("catalog.api.urls")),
    path("", include("carts.api.urls")),
    path("", include("projections.api.urls")),
    path("", include("claims.api.urls")),
    path("", include("analytics.api.urls")),
    # Last: any other path under /api/ is a problem document even with DEBUG on,
    # where Django would otherwise answer with its HTML debug page.
    re_path(r"^.*$", problems.not_found),
]

urlpatterns = [
    path("api/", include(api)),
    path("staff/rebuilds/", include("rebuilds.urls")),
    path("staff/analytics/", include("analytics.urls")),
    path("", include("shop.urls")),
]

handler404 = "cartlog.problems.not_found"
handler500 = "cartlog.problems.server_error"
