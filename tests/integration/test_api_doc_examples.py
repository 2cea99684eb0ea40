"""The examples of docs/api.md and docs/read-your-writes.md, sent as a mobile client sends them: over
HTTP to a real gunicorn on PostgreSQL with the demo catalog seeded (scripts/run.sh's `seed_catalog`),
the claim consumers and the async projections running. Each answer is compared with what the docs
show: status, headers, the body's fields and values, written out by hand from the docs.

Found by running the docs' curl commands: the example flow removed the cart's only line and then
checked out (409 "Cart is empty"); a command's answer carries `Cartlog-Position` and `position`, which
the example answer left out; a checkout's position is not the add's plus one (its StockReserved comes
first); an order in `/api/orders` has `shipping`.
"""

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from eventlog.models import Event
from tests.claim_helpers import claim_consumers_running
from tests.gunicorn_server import serving
from tests.processes import gunicorn_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"
BEANS = "Ethiopian Yirgacheffe Beans 250g"  # COF-001 in the demo catalog


class Answer:
    def __init__(self, status: int, headers: Message, body: bytes) -> None:
        self.status, self.headers = status, headers
        self.json: Any = json.loads(body) if body else None

    def __getitem__(self, header: str) -> str | None:
        return self.headers.get(header)


@pytest.fixture
def server(seeded_catalog: None, tmp_path: Path) -> Iterator[str]:
    env = gunicorn_env(tmp_path / "metrics", LOG_LEVEL="WARNING", CLAIM_WAIT_SECONDS="10")
    with (
        claim_consumers_running(with_projections=True),
        serving(env, "--threads", "2", stdout=tmp_path / "gunicorn.log") as url,
    ):
        yield url


def send(url: str, method: str, path: str, body: Any = None, token: str | None = None, **headers: str) -> Answer:
    """One request as curl sends it in the docs: JSON in, (status, headers, JSON body) out."""
    sent = {name.replace("_", "-"): value for name, value in headers.items()}
    if token:
        sent["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        sent["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as refused:
        return Answer(refused.code, refused.headers, refused.read())


def position(answer: Answer) -> int:
    """A command's position, the same in its header and its body."""
    assert answer["Cartlog-Position"] == str(answer.json["position"])
    return int(answer.json["position"])


def test_the_docs_example_flow_answers_what_the_docs_show(server: str) -> None:
    # docs/api.md, Accounts and tokens: sign up, log in.
    signed_up = send(server, "POST", "/api/accounts", {"username": "Alice", "password": PASSWORD})
    assert (signed_up.status, signed_up.json) == (201, {"username": "Alice"})
    logged_in = send(server, "POST", "/api/auth/token", {"username": "Alice", "password": PASSWORD})
    assert logged_in.status == 200 and list(logged_in.json) == ["token"]
    token = logged_in.json["token"]
    # docs/claims.md: the same name in another case is taken.
    taken = send(server, "POST", "/api/accounts", {"username": "ALICE", "password": "another passphrase"})
    assert taken.status == 409 and taken["Content-Type"] == "application/problem+json"
    assert taken.json["title"] == "Username taken"

    started = send(server, "POST", "/api/carts", token=token)
    cart = started.json["id"]
    assert (started.status, started["ETag"], started["Location"]) == (201, '"1"', f"/api/carts/{cart}")
    assert started.json["version"] == 1 and started.json["items"] == []

    # The AddToCart example and its answer.
    add = {"sku": "COF-001", "quantity": 2}
    added = send(server, "POST", f"/api/carts/{cart}/items", add, token, Idempotency_Key="add-beans-1", If_Match='"1"')
    assert (added.status, added["ETag"], added["Content-Type"]) == (200, '"2"', "application/json")
    added_at = position(added)
    assert added.json == {
        "id": cart, "status": "open",
        "items": [{"sku": "COF-001", "name": BEANS, "quantity": 2, "unit_price": "12.50", "line_total": "25.00"}],
        "subtotal": "25.00", "discount": "0.00", "total": "25.00", "coupon": None, "order_id": None, "version": 2,
        "position": added_at,
    }  # fmt: skip
    # Retries: the same key and request answer the first outcome and append nothing.
    events_before = Event.objects.count()
    again = send(server, "POST", f"/api/carts/{cart}/items", add, token, Idempotency_Key="add-beans-1", If_Match='"1"')
    assert (again.status, again["ETag"], again.json) == (200, '"2"', added.json)
    assert Event.objects.count() == events_before

    # Concurrency: a device pinning version 1 is told the version the cart is at.
    stale = send(server, "POST", f"/api/carts/{cart}/items", {"sku": "TEA-001", "quantity": 1}, token, If_Match='"1"')
    assert (stale.status, stale["ETag"], stale["Content-Type"]) == (412, '"2"', "application/problem+json")
    assert stale.json == {
        "type": "/api/problems/cart-changed-since-you-read-it", "title": "Cart changed since you read it",
        "status": 412, "detail": "The cart is at version 2, not 1; reload it and try again.",
    }  # fmt: skip

    # The example flow: each command's version as the comments say.
    assert send(server, "PUT", f"/api/carts/{cart}/items/COF-001", {"quantity": 3}, token).json["version"] == 3
    assert send(server, "POST", f"/api/carts/{cart}/items", {"sku": "TEA-001", "quantity": 1}, token)["ETag"] == '"4"'
    removed = send(server, "DELETE", f"/api/carts/{cart}/items/TEA-001", token=token)
    assert (removed.status, removed["ETag"]) == (200, '"5"')
    assert [line["sku"] for line in removed.json["items"]] == ["COF-001"]

    events = send(server, "GET", f"/api/carts/{cart}/events", token=token)
    assert events.status == 200 and events["Link"] is None
    assert [(e["version"], e["type"]) for e in events.json] == [
        (1, "CartStarted"), (2, "ItemAdded"), (3, "ItemQuantityChanged"), (4, "ItemAdded"), (5, "ItemRemoved"),
    ]  # fmt: skip
    item_added = events.json[1]
    assert list(item_added) == [
        "position", "event_id", "stream_id", "version", "type", "schema_version",
        "metadata", "occurred_at", "recorded_at", "data",
    ]  # fmt: skip
    actor = item_added["metadata"]["actor"]
    assert item_added["position"] == added_at and item_added["stream_id"] == f"cart-{cart}"
    assert item_added["data"] == {"sku": "COF-001", "quantity": 2, "unit_price": "12.50"}
    assert item_added["metadata"] == {
        "actor": actor, "command": "AddToCart", "command_id": f"{actor}|add-beans-1",
        "causation_id": None, "correlation_id": f"{actor}|add-beans-1",
    }  # fmt: skip
    # Paging: limit=3 gives versions 1-3 and a next link, which gives 4-5 and none.
    first = send(server, "GET", f"/api/carts/{cart}/events?limit=3", token=token)
    assert [e["version"] for e in first.json] == [1, 2, 3]
    assert first["Link"] == f'</api/carts/{cart}/events?after_version=3&limit=3>; rel="next"'
    link = re.fullmatch(r"<(.*)>; rel=\"next\"", first["Link"] or "")
    assert link is not None
    rest = send(server, "GET", link.group(1), token=token)
    assert ([e["version"] for e in rest.json], rest["Link"]) == ([4, 5], None)

    was = send(server, "GET", f"/api/carts/{cart}?at_version=2", token=token)
    assert (was.status, was["ETag"], was.json["items"][0]["quantity"], "position" in was.json) == (200, '"2"', 2, False)

    pay = {"coupon": "WELCOME10"}
    paid = send(server, "POST", f"/api/carts/{cart}/checkout", pay, token, Idempotency_Key="pay-1")
    assert (paid.status, paid["ETag"]) == (200, '"6"')
    paid_at = position(paid)
    order = paid.json
    money = {field: order[field] for field in ("subtotal", "discount", "total", "coupon")}
    assert money == {"subtotal": "37.50", "discount": "3.75", "total": "33.75", "coupon": "WELCOME10"}
    assert order["lines"] == [
        {"sku": "COF-001", "name": BEANS, "quantity": 3, "unit_price": "12.50", "line_total": "37.50"}
    ]
    assert (order["cart"]["status"], order["cart"]["version"], order["cart"]["order_id"]) == (
        "checked_out", 6, order["order_id"],
    )  # fmt: skip
    # docs/read-your-writes.md: the position is the CheckedOut's; the StockReserved came before it.
    assert Event.objects.get(position=paid_at).type == "CheckedOut"
    reserved = Event.objects.get(stream_id="stock-COF-001", type="StockReserved")
    assert removed.json["position"] < reserved.position < paid_at
    repeat = send(server, "POST", f"/api/carts/{cart}/checkout", pay, token, Idempotency_Key="pay-1")
    assert (repeat.status, repeat["ETag"], repeat.json) == (200, '"6"', order)

    # Read your writes: the order is listed once the view covers the checkout's position.
    for listed in (
        send(server, "GET", f"/api/orders?min_position={paid_at}", token=token),
        send(server, "GET", "/api/orders", token=token, Cartlog_Min_Position=str(paid_at)),
    ):
        assert listed.status == 200 and int(listed["Cartlog-Position"] or 0) >= paid_at
        assert listed.json == {
            "next": None, "previous": None,
            "results": [{
                "order_id": order["order_id"], "cart_id": cart,
                "lines": [{"sku": "COF-001", "name": BEANS, "quantity": 3, "unit_price": "12.50",
                           "line_total": "37.50"}],
                "subtotal": "37.50", "discount": "3.75", "total": "33.75", "coupon": "WELCOME10",
                "checked_out_at": listed.json["results"][0]["checked_out_at"], "position": paid_at, "shipping": None,
            }],
        }  # fmt: skip
    # A position no command has answered with yet: 503 at once, saying where the view is.
    ahead = send(server, "GET", "/api/orders?min_position=999999", token=token)
    assert (ahead.status, ahead["Content-Type"], ahead["Retry-After"]) == (503, "application/problem+json", "1")
    assert ahead.json["type"] == "/api/problems/view-not-caught-up-yet"
    assert (ahead.json["view"], ahead.json["min_position"]) == ("order_history", 999999)
    assert ahead["Cartlog-Position"] == str(ahead.json["covers_position"])

    # docs/api.md, Errors: the invalid-input example.
    refused = send(server, "POST", f"/api/carts/{cart}/items", {"sku": "COF-001", "quantity": "2"}, token)
    assert (refused.status, refused["Content-Type"]) == (400, "application/problem+json")
    assert refused.json == {
        "type": "/api/problems/invalid-input", "title": "Invalid input", "status": 400,
        "detail": "Some fields of the request are invalid; see errors.",
        "errors": {"quantity": ["A whole number is required (a JSON integer, not a string or decimal)."]},
    }  # fmt: skip
