"""Django's MessageMiddleware for the pages only: an API request skips it.

The one-time messages ("Added to your cart") belong to the shop's and the admin's
pages, which show them on the next page a browser loads. No API view adds or reads
one, and an answer under /api/ never shows them, so keeping them is all the storage
would do there: yet it builds a cookie and a session store for every request (callgrind: about
0.1M of an AddToCart request's 3.7M instructions). Messages a browser carries
are left as they are (nothing reads or rewrites the cookie on an API request), for
the next page. Django's admin check accepts the subclass in MIDDLEWARE.
"""

from django.contrib.messages.middleware import MessageMiddleware
from django.http import HttpRequest, HttpResponseBase

from api.problems import is_api


class PageMessageMiddleware(MessageMiddleware):
    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if is_api(request):
            return self.get_response(request)  # type: ignore[return-value]  # WSGI: never awaitable
        return super().__call__(request)  # type: ignore[return-value]
