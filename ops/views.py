"""/metrics (Prometheus text format), /health/live and /health/ready (JSON; 200 or 503)."""

from django.conf import settings
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
    """Ready for traffic while the database answers (503 otherwise); the Kafka broker and the consumers'
    heartbeats are reported beside it and make the status "degraded", not a 503 (ops/health.py says why,
    and why a failing consumer's error is named by its class alone unless a staff session asks)."""
    # A failing consumer's error may quote an event or the machine: whole only to a staff session.
    checks = health.readiness(detail=lambda: request.user.is_staff)
    serves = not any(checks[name] for name in health.SERVES)
    status = "unavailable" if not serves else "degraded" if any(checks.values()) else "ok"
    said = {name: problem or "ok" for name, problem in checks.items()}
    if not settings.KAFKA_BOOTSTRAP_SERVERS:
        said["kafka"] = "not used"  # the table transport (Celery's broker is not a check here)
    return JsonResponse({"status": status, "checks": said}, status=200 if serves else 503)
