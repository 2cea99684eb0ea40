"""Middlewares of the web tier: Django's MessageMiddleware for the pages only, the
Content-Security-Policy header on every answer, answers for a signed-in client kept out
of caches, and the admin's log-in throttled.

The one-time messages ("Added to your cart") belong to the shop's and the admin's
pages, which show them on the next page a browser loads. No API view adds or reads
one, and an answer under /api/ never shows them, so keeping them is all the storage
would do there: yet it builds a cookie and a session store for every request (callgrind: about
0.1M of an AddToCart request's 3.7M instructions). Messages a browser carries
are left as they are (nothing reads or rewrites the cookie on an API request), for
the next page. Django's admin check accepts the subclass in MIDDLEWARE.

Django 5.2 sends no Content-Security-Policy of its own: `ContentSecurityPolicyMiddleware` sends
settings.CONTENT_SECURITY_POLICY (docs/security.md), unless the answer already has one.

An answer to a signed-in request (a session's user, or an `Authorization` header) holds that person's
data: their orders with the shipping details, their carts. `PrivateAnswersMiddleware` marks it
`Cache-Control: private, no-store` (unless the view said otherwise), so no shared cache keeps it and
the browser does not keep it on disk or in its back/forward cache, where it outlived a log-out and
a Forget me on a shared computer. Anonymous answers (the catalog) are left as they were.

The admin's log-in form is a third door to the same passwords as the API's token and the shop's
log-in: `AdminLoginThrottleMiddleware` makes each of its POSTs spend the same per-address budget
(accounts/throttles.py), or answers the shop's 429 page. It was not throttled at all, so a staff
password could be guessed there at the server's full speed.

The account's own budget of wrong passwords is kept by the authentication backend, which refuses
by raising `AccountResting` from inside a form's validation (the shop's log-in and Forget me, the
admin's log-in). `AccountRestingMiddleware` turns it into the same 429 page for every one of them;
the API's views answer it themselves (it is a DRF `Throttled`).
"""

from collections.abc import Callable

from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.http import HttpRequest, HttpResponseBase
from django.urls import reverse
from django.utils.cache import patch_cache_control

from accounts.throttles import AccountResting, LoginThrottle, refused_for
from api.problems import is_api
from shop.views.account import too_many_page

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


def signed_in(request: HttpRequest) -> bool:
    """Whether the answer is for a known person: a token (checked later, by the API view) or a session."""
    if "HTTP_AUTHORIZATION" in request.META:
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class PrivateAnswersMiddleware:
    """After AuthenticationMiddleware, which gives a request its session's user."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if "Cache-Control" not in response and signed_in(request):
            patch_cache_control(response, private=True, no_store=True)
        return response


class AdminLoginThrottleMiddleware:
    """After AuthenticationMiddleware: the 429 page is drawn like any page (it shows who is signed in)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.login_path = ""  # reversed on the first request: the URLconf may not be loaded yet

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method != "POST":
            return self.get_response(request)
        self.login_path = self.login_path or reverse("admin:login")
        if request.path == self.login_path:
            wait = refused_for(LoginThrottle, request)
            if wait is not None:
                return too_many_page(request, wait)
        return self.get_response(request)


class AccountRestingMiddleware:
    """A page whose form asked for a password of an account that is resting answers 429."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        if isinstance(exception, AccountResting):
            return too_many_page(request, int(exception.wait or 1))
        return None
