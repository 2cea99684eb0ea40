"""While the database cannot answer: 503 with `Retry-After`, never a 500, for every request.

An outage (PostgreSQL restarting, the network gone) or a transient refusal
(deadlock, statement timeout) surfaces as Django's OperationalError or
InterfaceError wherever the request first touches the database. Three hooks
turn it into a 503 that tells the client to come back: this middleware for
views, `exception_handler` for DRF views (whose own handler would answer 500),
and `server_error` (handler500) for what fails outside a view, such as the
session saved on the way out. The API gets `application/problem+json`, the shop
a static page that itself needs no database.

Recovery is Django's: with CONN_HEALTH_CHECKS (settings) a pooled connection
is tested before its first use in each request and replaced if the server went
away, so the first request after the database is back succeeds
(tests/integration/test_outage_gunicorn.py; docs/reliability.md).
"""

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from rest_framework.response import Response

from api import problems

log = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 5
PROBLEM = {
    "type": "about:blank",
    "title": "Service unavailable",
    "status": 503,
    "detail": "The database cannot answer right now; nothing was changed. Retry after the time in Retry-After.",
}


def is_outage(error: BaseException | None) -> bool:
    return isinstance(error, OperationalError | InterfaceError)


def response_for(request: HttpRequest, error: BaseException) -> HttpResponse:
    # One line, no traceback: during an outage every request lands here.
    log.warning("database unavailable, %s %s answered 503: %s", request.method, request.path, error)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(PROBLEM, status=503, content_type=problems.PROBLEM_JSON)
    else:
        # Rendered without the request: the shop's context processors would read the database.
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseOutageMiddleware:
    """Last in MIDDLEWARE, so its process_exception sees a view's error first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return response_for(request, exception) if is_outage(exception) else None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: an outage is a 503 problem, everything else goes to api.problems."""
    if not is_outage(exc):
        return problems.exception_handler(exc, context)
    log.warning("database unavailable, API view answered 503: %s", exc)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return Response(PROBLEM, status=503, content_type=problems.PROBLEM_JSON, headers=headers)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: Django calls it inside its `except`, so the error is still in sys.exc_info()."""
    error = sys.exc_info()[1]
    return response_for(request, error) if error is not None and is_outage(error) else problems.server_error(request)
