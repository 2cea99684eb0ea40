"""The cart views' lean path (api/lean.py) answers byte for byte as DRF's own does.

The same requests are sent twice, on a fresh cart each time: once as the views run,
once with LeanAPIView's shortcuts swapped back for DRF's own (policies built per
request, the Accept header parsed, every answer a Response). Only the cart id and
the log positions may differ between the two runs.
"""

import re
from typing import Any

import pytest
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from api.lean import Answer, LeanAPIView
from tests.e2e.api_helpers import client_for

pytestmark = pytest.mark.django_db

JSON = "application/json"
# (method, path under the cart, body, content type, extra headers); {} is the cart's URL.
REQUESTS: list[tuple[str, str, bytes, str, dict[str, str]]] = [
    ("post", "{}/items", b'{"sku": "COF-001", "quantity": 2}', JSON, {}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_ACCEPT": "*/*"}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_ACCEPT": JSON}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_ACCEPT": "application/json; indent=4"}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_ACCEPT": "text/html"}),
    ("post", "{}/items?format=json", b'{"sku": "KIT-001", "quantity": 1}', JSON, {}),
    ("post", "{}/items?format=xml", b'{"sku": "KIT-001", "quantity": 1}', JSON, {}),
    ("post", "{}/items?x=1", b'{"sku": "KIT-001", "quantity": 1}', JSON, {}),
    ("post", "{}/items", b'{"sku": 5, "quantity": "2"}', JSON, {}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1', JSON, {}),
    ("post", "{}/items", b"sku=KIT-001", "text/plain", {}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_IF_MATCH": '"99"'}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_IDEMPOTENCY_KEY": "key-of-{}"}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {"HTTP_IDEMPOTENCY_KEY": "key-of-{}"}),
    ("post", "{}/items", b'{"sku": "NOPE-1", "quantity": 1}', JSON, {"HTTP_X_CORRELATION_ID": "c-1"}),
    ("put", "{}/items", b"{}", JSON, {}),
    ("options", "{}/items", b"", JSON, {}),
    ("put", "{}/items/COF-001", b'{"quantity": 5}', JSON, {}),
    ("delete", "{}/items/KIT-001", b"", JSON, {}),
    ("get", "{}", b"", JSON, {}),
    ("get", "{}", b"", JSON, {"HTTP_ACCEPT": "application/json; indent=2"}),
    ("get", "{}?format=json", b"", JSON, {}),
    ("get", "{}?at_version=2", b"", JSON, {}),
    ("get", "{}/events?limit=2", b"", JSON, {}),
    ("post", "{}/checkout", b"{}", JSON, {}),
    ("post", "{}/items", b'{"sku": "KIT-001", "quantity": 1}', JSON, {}),
]


def drf_own_way(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("get_parsers", "get_authenticators", "get_renderers", "get_permissions", "get_throttles"):
        monkeypatch.setattr(LeanAPIView, name, getattr(APIView, name))
    monkeypatch.setattr(LeanAPIView, "perform_content_negotiation", APIView.perform_content_negotiation)
    monkeypatch.setattr(LeanAPIView, "default_response_headers", APIView.default_response_headers)

    def as_response(self: LeanAPIView, request: Any, answer: Answer) -> Response:
        return Response(answer.data, status=answer.status, headers=answer.headers)

    monkeypatch.setattr(LeanAPIView, "render_answer", as_response)


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+Z")
POSITION = re.compile(r'"position": ?\d+')


def same(text: str) -> str:
    """What may differ between two runs (ids, times, log positions) made the same."""
    return POSITION.sub('"position":P', TIME.sub("T", UUID.sub("U", text)))


def exchange(client: APIClient, anonymous: APIClient) -> list[tuple[int, dict[str, str], str]]:
    cart_id = client.post("/api/carts").json()["id"]
    answers = []
    for method, path, body, content_type, extra in [*REQUESTS, ("post", "{}/items", b"{}", JSON, {})]:
        sender = anonymous if (method, path, body) == ("post", "{}/items", b"{}") else client
        url = path.format(f"/api/carts/{cart_id}")
        headers_sent = {name: value.format(cart_id) for name, value in extra.items()}  # a key per cart
        response = sender.generic(method.upper(), url, body, content_type, **headers_sent)  # type: ignore[arg-type]
        headers = {name: same(value) for name, value in response.headers.items() if name != "Content-Length"}
        if "Cartlog-Position" in headers:
            headers["Cartlog-Position"] = "P"
        answers.append((response.status_code, headers, same(response.content.decode())))
    return answers


def test_the_cart_views_answer_as_drf_does_for_plain_and_unusual_requests(
    catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, anonymous = client_for("lean-ada"), APIClient()
    lean = exchange(client, anonymous)
    drf_own_way(monkeypatch)
    drf = exchange(client, anonymous)

    assert [status for status, _, _ in lean] == [
        200, 200, 200, 200, 406, 200, 404, 200, 400, 400, 415, 412, 200, 200, 400,
        405, 200, 200, 200, 200, 200, 200, 200, 200, 200, 409, 401,
    ]  # fmt: skip
    assert lean == drf
    # The plain answer is compact JSON; the one that asked for indent=4 is indented, as DRF does it.
    assert lean[0][2].startswith('{"id":"U","status":"open","items":[{"sku":"COF-001"')
    assert lean[3][2].startswith('{\n    "id": "U"')


def test_an_api_request_leaves_a_browsers_pending_messages_for_its_next_page(catalog: None) -> None:
    client = client_for("lean-bob")
    client.cookies["messages"] = "pending-for-the-next-page"
    response = client.post("/api/carts")
    assert response.status_code == 201
    assert "messages" not in response.cookies
    assert "Cookie" not in response.headers.get("Vary", "")


def test_a_throttle_is_made_for_each_request_while_the_stateless_policies_are_shared() -> None:
    """DRF's rate throttles keep the request they judge on themselves (its key, its history):
    one shared by a worker's threads would judge one request by another's."""
    from rest_framework.throttling import BaseThrottle

    from api.lean import LeanAPIView

    class Counting(BaseThrottle):
        def allow_request(self, request: object, view: object) -> bool:
            return True

    class Throttled(LeanAPIView):
        throttle_classes = [Counting]

    first, second = Throttled(), Throttled()
    assert first.get_throttles()[0] is not second.get_throttles()[0]
    assert first.get_permissions()[0] is second.get_permissions()[0]
