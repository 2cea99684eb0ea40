"""Two middlewares of the web tier: Django's MessageMiddleware for the pages only, and the
Content-Security-Policy header on every answer.

The one-time messages ("Added to your cart") belong to the shop's and the admin's
pages, which show them on the next page a browser loads. No API view adds or reads
one, and an answer under /api/ never shows them, so keeping them is all the storage
would do there: yet it builds a cookie and a session store for every request (callgrind: about
0.1M of an AddToCart request's 3.7M instructions). Messages a browser carries
are left as they are (nothing reads or rewrites the cookie on an API request), for
the next page. Django's admin check accepts the subclass in MIDDLEWARE.

Django 5.2 sends no Content-Security-Policy of its own: `ContentSecurityPolicyMiddleware` sends
settings.CONTENT_SECURITY_POLICY (docs/security.md), unless the answer already has one.
"""

from collections.abc import Callable

from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.http import HttpRequest, HttpResponseBase

from api.problems import is_api

CSP = "Content-Security-Policy"


class PageMessageMiddleware(MessageMiddleware):
    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if is_api(request):
            return self.get_response(request)  # type: ignore[return-value]  # WSGI: never awaitable
        return super().__call__(request)  # type: ignore[return-value]


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY  # read once: settings do not change while serving

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if self.policy and CSP not in response:
            response[CSP] = self.policy
        return response
