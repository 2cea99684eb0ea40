"""/metrics (Prometheus text format), /health/live and /health/ready (JSON; 200 or 503)."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from . import health
from .metrics import scraped


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    return HttpResponse(generate_latest(scraped()), content_type=CONTENT_TYPE_LATEST)


@never_cache
@require_GET
def live(request: HttpRequest) -> JsonResponse:
    """The process answers requests: nothing else is asked (a restart would not fix a database outage)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def ready(request: HttpRequest) -> JsonResponse:
    """Ready for traffic: the database, the broker when configured, and every consumer's heartbeat."""
    checks = health.readiness()
    problems = {name: problem for name, problem in checks.items() if problem}
    body = {"status": "unavailable" if problems else "ok", "checks": {k: v or "ok" for k, v in checks.items()}}
    return JsonResponse(body, status=503 if problems else 200)
