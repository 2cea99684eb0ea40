"""Which HTTP methods a shop address answers, and the designed page for any other.

Django's `require_POST` and friends answer a wrong method with an empty 405, which a
browser shows as a blank page: reloading the address a refused form was sent to
(`/cart/lines/<sku>/update/` after a 400) led there. These decorators answer the
same 405, with its `Allow` header, as a page of the shop's own (templates/405.html).
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

View = Callable[..., HttpResponse]


def allow(*methods: str) -> Callable[[View], View]:
    def decorator(view: View) -> View:
        @wraps(view)
        def only(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = render(request, "405.html", {"allowed": methods}, status=405)
                response["Allow"] = ", ".join(methods)
                return response
            return view(request, *args, **kwargs)

        return only

    return decorator


get_only = allow("GET", "HEAD")
post_only = allow("POST")
get_or_post = allow("GET", "HEAD", "POST")
