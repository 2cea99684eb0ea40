"""DRF's APIView with its per-request set-up done once per view class (the cart views),
and an answer rendered in one step.

For every request DRF instantiates the view's parsers, authenticators, renderers,
permissions and throttles, works out the Allow header, and parses the Accept header
to pick a renderer, though the answer only changes with the view class or the Accept
header. Parsers, authenticators, renderers and permissions keep nothing of a request,
so `LeanAPIView` builds them once per class (and shares them between a worker's
threads); throttles do keep the request they judge (DRF's rate throttles set their
key and history on themselves), so they are still made per request, as DRF makes them.
For a request that names no format and accepts any media type or JSON itself (`Accept`
absent, `*/*` or `application/json`), it picks the renderer DRF would pick without
parsing the header. Anything else (another Accept, `?format=`) goes
through DRF's own negotiation.

A view may also answer with an `Answer` (data, status, headers) instead of DRF's
`Response`, a template response that is built empty, then rendered and filled in a
second pass. When the request took the plain JSON choice above, `finalize_response`
renders the data with the same renderer straight into an HttpResponse with the same
status, headers and bytes; otherwise it becomes the `Response` DRF would have made.
An answer marked `native` (only strings, integers, None, lists and dicts: a cart
document) is written by orjson, whose bytes for those are json's, escapes included
(checked for every code point); DRF's renderer adds the escaping of U+2028 and U+2029,
and so does `native_json`. Errors are DRF's, untouched. tests/e2e/test_api_lean.py
keeps the answers equal, byte for byte.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from rest_framework.authentication import BaseAuthentication
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

if TYPE_CHECKING:
    from rest_framework.permissions import _SupportsHasPermission

# The Accept headers that DRF's negotiation answers with the first renderer and its own
# media type (a bare `*/*` or exactly that type; parameters such as `indent=4` change the answer).
PLAIN_ACCEPT = frozenset({None, "*/*"})


@dataclass(frozen=True)
class Answer:
    """A view's successful answer, rendered by LeanAPIView.finalize_response."""

    data: Any
    status: int = 200
    headers: dict[str, str] | None = None
    native: bool = False  # True: `data` holds only str, int, None, lists and dicts (no floats)


def native_json(data: Any) -> bytes:
    """DRF's compact, unescaped-Unicode JSON of `data` (see `Answer.native`), by orjson."""
    return orjson.dumps(data).replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")


class Policies:
    """One view class's policy objects and default headers, built as DRF builds them per request."""

    def __init__(self, view: type[APIView]) -> None:
        instance = view()
        instance.setup(HttpRequest())  # as for a request: a view with GET also answers HEAD (Django's View.setup)
        self.parsers = APIView.get_parsers(instance)
        self.authenticators = APIView.get_authenticators(instance)
        self.renderers = APIView.get_renderers(instance)
        self.permissions = APIView.get_permissions(instance)
        self.headers = APIView.default_response_headers.fget(instance)  # type: ignore[attr-defined]
        first = self.renderers[0] if self.renderers else None
        self.plain_accept = PLAIN_ACCEPT | ({first.media_type} if first else set())
        self.plain_choice = (first, first.media_type) if first else None
        # DRF's JSON renderer reads nothing from its context but `indent`, which a plain choice never has.
        self.renders_alone = isinstance(first, JSONRenderer)
        self.native = type(first) is JSONRenderer and first.compact and not first.ensure_ascii


class LeanAPIView(APIView):
    @classmethod
    def policies(cls) -> Policies:
        found = cls.__dict__.get("_policies")
        if found is None:
            found = Policies(cls)
            cls._policies = found  # type: ignore[attr-defined]  # per class: subclasses build their own
        return found  # type: ignore[no-any-return]

    def get_parsers(self) -> list[BaseParser]:
        return self.policies().parsers

    def get_authenticators(self) -> list[BaseAuthentication]:
        return self.policies().authenticators

    def get_renderers(self) -> list[BaseRenderer]:
        return self.policies().renderers

    def get_permissions(self) -> Sequence["_SupportsHasPermission"]:
        return self.policies().permissions

    @property
    def default_response_headers(self) -> dict[str, str]:
        return dict(self.policies().headers)  # type: ignore[arg-type]  # a copy: finalize_response pops from it

    # DRF takes and returns any HttpResponseBase here (its stubs say Response).
    def finalize_response(  # type: ignore[override]
        self, request: Request, response: HttpResponseBase | Answer, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        if isinstance(response, Answer):
            response = self.render_answer(request, response)
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[arg-type]

    def render_answer(self, request: Request, answer: Answer) -> HttpResponseBase:
        policies = self.policies()
        choice = policies.plain_choice
        if (
            choice is not None
            and policies.renders_alone
            and answer.data is not None
            and getattr(request, "accepted_renderer", None) is choice[0]
            and getattr(request, "accepted_media_type", None) == choice[1]
        ):
            renderer, media_type = choice
            content = self.rendered(answer, renderer, media_type)
            return HttpResponse(content, status=answer.status, content_type=media_type, headers=answer.headers)
        return Response(answer.data, status=answer.status, headers=answer.headers)

    def rendered(self, answer: Answer, renderer: BaseRenderer, media_type: str) -> bytes:
        if answer.native and self.policies().native:
            try:
                return native_json(answer.data)
            except orjson.JSONEncodeError:  # an integer beyond 64 bits: json writes it, orjson does not
                pass
        return renderer.render(answer.data, media_type, {})  # type: ignore[return-value]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        policies = self.policies()
        if (
            policies.plain_choice is not None
            and not getattr(self, "format_kwarg", None)
            and request._request.META.get("HTTP_ACCEPT") in policies.plain_accept
            and not (request._request.META.get("QUERY_STRING") and self.format_asked(request))
        ):
            return policies.plain_choice
        return super().perform_content_negotiation(request, force)

    def format_asked(self, request: Request) -> bool:
        return bool(request._request.GET.get(self.settings.URL_FORMAT_OVERRIDE))
