"""Every API error as `application/problem+json` (RFC 9457), mapped in one place.

Domain errors (`kernel.errors` and its subclasses in every domain package) map
to HTTP statuses here and nowhere else, by their kind. Unknown routes and server
errors under /api/ get a problem document too; the web shop gets its pages.
"""

import logging
import re
from typing import Any

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from kernel import errors as kinds
from kernel.errors import DomainError

log = logging.getLogger(__name__)
PROBLEM_JSON = "application/problem+json"

# The one place a kind of refusal becomes an HTTP status (most specific first).
STATUS: dict[type[DomainError], int] = {
    kinds.InvalidInputError: 400,
    kinds.NotFoundError: 404,
    kinds.ConflictError: 409,
    kinds.PreconditionFailedError: 412,
    kinds.UnprocessableError: 422,
    kinds.UnavailableError: 503,
}


def status_for(error: DomainError) -> int:
    return status_of(type(error))


def status_of(kind: type[DomainError]) -> int:
    for cls in kind.__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 400


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def problem(status_code: int, title: str, detail: str, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    # A crash says nothing but its status. Every answer the API explains has a type of its own, a 503
    # too (a view behind, a coupon check pending): with about:blank the title would have to be the
    # status phrase (RFC 9457 section 4.2.1), and a client could tell the two 503s apart only by title.
    body: dict[str, Any] = {
        "type": "about:blank" if status_code == 500 else f"/api/problems/{slug(title)}",
        "title": title,
        "status": status_code,
        "detail": detail,
    }
    if errors:
        body["errors"] = errors
    return body


def too_large() -> dict[str, Any]:
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE, however Django noticed it."""
    return problem(413, "Request too large", "The request body is larger than this API accepts.")


def domain_problem(error: DomainError) -> Response:
    code = status_for(error)
    fields = {error.field: [error.detail]} if error.field else None
    # An error may add RFC 9457 extension members and headers (api/freshness.py: the position a view covers).
    body = {**problem(code, error.title, error.detail, fields), **getattr(error, "problem_members", {})}
    response = Response(body, status=code, content_type=PROBLEM_JSON, headers=getattr(error, "headers", None))
    if isinstance(error, kinds.UnavailableError):
        response["Retry-After"] = str(error.retry_after_seconds)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return domain_problem(exc)
    if isinstance(exc, RequestDataTooBig):  # raised by Django while DRF reads the body
        return Response(too_large(), status=413, content_type=PROBLEM_JSON)
    response = drf_exception_handler(exc, context)
    if response is None:
        log.exception("unhandled error in API view", exc_info=exc)
        body = problem(500, "Internal server error", "Something went wrong on our side; it has been logged.")
        return Response(body, status=500, content_type=PROBLEM_JSON)
    response.data = _problem_from_drf(exc, response)
    response.content_type = PROBLEM_JSON
    return response


def _problem_from_drf(exc: Exception, response: Response) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        errors = response.data if isinstance(response.data, dict) else {"non_field_errors": response.data}
        return problem(
            response.status_code, "Invalid input", "Some fields of the request are invalid; see errors.", errors
        )
    detail = response.data.get("detail", "") if isinstance(response.data, dict) else str(response.data)
    title = _TITLES.get(response.status_code, "Request refused")
    return problem(response.status_code, title, str(detail))


_TITLES = {
    400: "Bad request",
    401: "Not authenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    415: "Unsupported media type",
    429: "Too many requests",
}


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def invalid_input(field: str, detail: str) -> HttpResponse:
    """A 400 for a request refused before its view ran (api/input_guard.py)."""
    body = problem(400, "Invalid input", detail, {field: [detail]})
    return JsonResponse(body, status=400, content_type=PROBLEM_JSON)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's own 400s (handler400): a form body over DATA_UPLOAD_MAX_MEMORY_SIZE or with too
    many fields, a bad Host. The shop's page says which, not a word about unreadable characters."""
    too_big = isinstance(exception, RequestDataTooBig | TooManyFieldsSent | TooManyFilesSent)
    if is_api(request):
        if too_big:
            return JsonResponse(too_large(), status=413, content_type=PROBLEM_JSON)
        body = problem(400, "Bad request", "The request could not be read.")
        return JsonResponse(body, status=400, content_type=PROBLEM_JSON)
    detail = (
        "The form you sent is larger than the shop accepts." if too_big else "The shop could not read this request."
    )
    return render(request, "400.html", {"detail": detail}, status=400)


@csrf_exempt  # so an unknown route answers 404 for every method, not the CSRF page
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        body = problem(404, "Not found", f"There is nothing at {request.path}.")
        return JsonResponse(body, status=404, content_type=PROBLEM_JSON)
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        body = problem(500, "Internal server error", "Something went wrong on our side; it has been logged.")
        return JsonResponse(body, status=500, content_type=PROBLEM_JSON)
    return render(request, "500.html", status=500)
