"""Refuse input no view can use, before any view reads it (docs/security.md).

PostgreSQL cannot hold a NUL byte in text, so a `%00` in a cart id or a search term
used to fail deep in a query with a 500; an over-long value is never a real id. The
check runs in `process_view`, where the URL's named parts are known, so the refusal
names the field: a URL part (`cart_id`), a query parameter, a header the API reads,
or a field of a posted form (a NUL byte only: a form checks its own lengths; a view that
reads a field without a form, as the shop's cart switch reads `cart_id`, failed with a 500).
The API answers a problem document, the shop its 400 page.
"""

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .problems import invalid_input, is_api

MAX_PATH_VALUE = 200
MAX_QUERY_VALUE = 500
# A posted form's fields are refused for a NUL byte only: DATA_UPLOAD_MAX_MEMORY_SIZE bounds the body.
MAX_FORM_VALUE = 2**31
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
# Every request header the API reads, with the longest value it accepts.
API_HEADERS = {"If-Match": 100, "Idempotency-Key": 200, "X-Correlation-ID": 200}
# The same, by their names in META (read there: request.headers builds a mapping of every header).
_API_META = [(name, "HTTP_" + name.upper().replace("-", "_"), limit) for name, limit in API_HEADERS.items()]


def refusal(field: str, value: str, limit: int) -> str | None:
    """Why `value` is refused, or None."""
    if "\x00" in value:
        return f"{field} holds a NUL byte."
    if len(value) > limit:
        return f"{field} has at most {limit} characters."
    return None


def first_refusal(request: HttpRequest, view_kwargs: dict[str, Any]) -> tuple[str, str] | None:
    checks: list[tuple[str, str, int]] = [(k, str(v), MAX_PATH_VALUE) for k, v in view_kwargs.items()]
    meta = request.META
    if meta.get("QUERY_STRING"):  # else GET is empty: not parsed for nothing
        for key, values in request.GET.lists():
            checks.append(("query parameter name", key, MAX_QUERY_VALUE))
            checks.extend((key, value, MAX_QUERY_VALUE) for value in values)
    if is_api(request):
        checks.extend((name, meta[key], limit) for name, key, limit in _API_META if key in meta)
    elif request.method == "POST" and request.content_type in FORM_TYPES:
        for key, values in request.POST.lists():
            checks.append(("form field name", key, MAX_FORM_VALUE))
            checks.extend((key, value, MAX_FORM_VALUE) for value in values)
    for field, value, limit in checks:
        reason = refusal(field, value, limit)
        if reason is not None:
            return field.replace("\x00", "\\0"), reason.replace("\x00", "\\0")
    return None


class InputGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], view_args: list[Any], view_kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        found = first_refusal(request, view_kwargs)
        if found is None:
            return None
        field, reason = found
        if is_api(request):
            return invalid_input(field, reason)
        return render(request, "400.html", {"detail": reason}, status=400)
