"""Every API error as `application/problem+json` (RFC 9457), mapped in one place.

Domain errors (carts.errors, and the errors of later modules registered in
STATUS) map to HTTP statuses here and nowhere else. Unknown routes and server
errors under /api/ get a problem document too; the web shop gets its pages.
"""

import logging
import re
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from carts import errors as cart_errors

log = logging.getLogger(__name__)
PROBLEM_JSON = "application/problem+json"

STATUS: dict[type[Exception], int] = {
    cart_errors.InvalidQuantityError: 400,
    cart_errors.UnknownProductError: 400,
    cart_errors.InactiveProductError: 400,
    cart_errors.ItemNotInCartError: 404,
    cart_errors.CartNotFoundError: 404,
    cart_errors.CartAlreadyExistsError: 409,
    cart_errors.CartCheckedOutError: 409,
    cart_errors.EmptyCartError: 409,
    cart_errors.TooManyLinesError: 409,
    cart_errors.ConcurrencyConflictError: 409,
    cart_errors.StaleVersionError: 412,
    cart_errors.IdempotencyKeyReusedError: 422,
}


class DomainError(Exception):
    """Base for the errors of other modules: each subclass states its HTTP `status`
    beside its `title`, so the mapping still lives with the error, in one line."""

    status = 400
    title = "Request refused"
    field: str | None = None

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def status_for(error: Exception) -> int | None:
    if isinstance(error, DomainError):
        return error.status
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return None


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def problem(status_code: int, title: str, detail: str, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": f"/api/problems/{slug(title)}" if status_code < 500 else "about:blank",
        "title": title,
        "status": status_code,
        "detail": detail,
    }
    if errors:
        body["errors"] = errors
    return body


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    code = status_for(exc)
    if code is not None:
        title = getattr(exc, "title", "Request refused")
        detail = getattr(exc, "detail", str(exc))
        field = getattr(exc, "field", None)
        body = problem(code, title, detail, {field: [detail]} if field else None)
        return Response(body, status=code, content_type=PROBLEM_JSON)
    if isinstance(exc, RequestDataTooBig):  # raised by Django while DRF reads the body
        body = problem(413, "Request too large", "The request body is larger than this API accepts.")
        return Response(body, status=413, content_type=PROBLEM_JSON)
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


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        body = problem(404, "Not found", f"There is nothing at {request.path}.")
        return JsonResponse(body, status=404, content_type=PROBLEM_JSON)
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        body = problem(500, "Internal server error", "Something went wrong on our side; it has been logged.")
        return JsonResponse(body, status=500, content_type=PROBLEM_JSON)
    return render(request, "500.html", status=500)
