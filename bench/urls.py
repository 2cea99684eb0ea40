"""cartlog's URLs plus /bench/ceiling; used only with bench.settings."""

from django.urls import URLPattern, URLResolver, path

from bench.ceiling.views import CeilingView
from cartlog import urls as cartlog_urls

urlpatterns: list[URLPattern | URLResolver] = [
    path("bench/ceiling", CeilingView.as_view(), name="bench-ceiling"),
    *cartlog_urls.urlpatterns,
]
handler404 = cartlog_urls.handler404
handler500 = cartlog_urls.handler500
