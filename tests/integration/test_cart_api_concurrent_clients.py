"""Two devices of one shopper on the REST API at once, under real gunicorn (2 workers, 2 threads each)
on PostgreSQL: what each device is told, and what the log and the stock hold afterwards.

- A device refused with 412 (another device changed the cart since it read it) is told the version
  the cart is at, in the ETag of the 412, so it can pin that and send again without a read. A 412
  from a race lost at the append said neither the version in its ETag nor in its detail.
- A checkout sent again while its first send still runs (a client's retry after a timeout) is
  answered with the one order. It used to reserve the units a second time and keep them
  (STOCK_RESERVATION_SECONDS, 5 minutes by default) when its first send placed the order; and
  when the first held the last units, it was told 409 "Out of stock: only 0 left" for an order
  that was being placed. It is told 409 "Checkout in progress" (with Retry-After) instead, and
  its next send gets the order.
- A checkout while another device changes the cart orders what it reserved: when the change came
  between the reservation and the order, the order was decided again on the changed cart and held
  units that never left the stock (an oversell).
- A retry of a change that changed nothing does not undo another device's change made since.
- Paging `/events` while two devices write lists every version once.
"""

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from threading import Barrier
from typing import Any, TypeVar

import pytest
from django.contrib.auth import get_user_model
from knox.models import AuthToken

from eventlog.models import Event
from inventory.models import StockLevel
from tests.gunicorn_server import serving
from tests.processes import gunicorn_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

Answer = tuple[int, dict[str, str], Any]
T = TypeVar("T")


@pytest.fixture
def server(seeded_catalog: None, tmp_path: Path) -> Iterator[str]:
    env = gunicorn_env(tmp_path / "metrics", LOG_LEVEL="WARNING")
    with serving(env, "--threads", "2", stdout=tmp_path / "gunicorn.log") as url:
        yield url


@pytest.fixture
def token() -> str:
    user = get_user_model().objects.create_user(username="two-devices", password="a-long-passphrase")
    return str(AuthToken.objects.create(user=user)[1])


def send(url: str, token: str, method: str, path: str, body: Any = None, **headers: str) -> Answer:
    """One request as a device sends it: (status, headers, JSON body)."""
    sent = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    sent.update({name.replace("_", "-"): value for name, value in headers.items()})
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), json.loads(refused.read())


def at_once(requests: Sequence[Callable[[], T]]) -> list[T]:
    """Each request from a thread of its own, released together, as devices that tap at the same moment."""
    start = Barrier(len(requests))

    def one(request: Callable[[], T]) -> T:
        start.wait()
        return request()

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(one, requests))


def later(seconds: float, request: Callable[[], T]) -> T:
    """`request` after a pause: a second device a few milliseconds behind the first."""
    time.sleep(seconds)
    return request()


def new_cart(url: str, token: str, *lines: tuple[str, int]) -> str:
    status, _, cart = send(url, token, "POST", "/api/carts")
    assert status == 201, cart
    for sku, quantity in lines:
        status, _, cart = send(url, token, "POST", f"/api/carts/{cart['id']}/items", {"sku": sku, "quantity": quantity})
        assert status == 200, cart
    return str(cart["id"])


def stock(sku: str) -> tuple[int, int]:
    level = StockLevel.objects.get(sku=sku)
    return level.on_hand, level.reserved


def orders_of(cart_id: str) -> int:
    return Event.objects.filter(stream_id=f"cart-{cart_id}", type="CheckedOut").count()


DEVICES = ["COF-001", "COF-002", "TEA-001", "TEA-002", "KIT-001", "KIT-002"]


def add(url: str, token: str, cart_id: str, device: int, pinned: str) -> Answer:
    """Device `device` adds one of its product, pinned to the version it knows."""
    body = {"sku": DEVICES[device], "quantity": 1}
    return send(url, token, "POST", f"/api/carts/{cart_id}/items", body, If_Match=pinned)


def until_in(url: str, token: str, cart_id: str, device: int, refused: Answer) -> Answer:
    """Send the change again, pinned to what the last 412 said, until it goes in (no read in between)."""
    status, headers, body = refused
    for _ in range(40):
        status, headers, body = add(url, token, cart_id, device, headers["ETag"])
        if status == 200:
            return status, headers, body
        assert status == 412 and headers.get("ETag"), (status, headers, body)
    raise AssertionError(f"device {device} never got its change in")


def test_a_device_refused_with_412_learns_the_version_from_it_and_gets_its_change_in(server: str, token: str) -> None:
    for _ in range(3):
        cart_id = new_cart(server, token)  # every device read it at version 1

        first = at_once([partial(add, server, token, cart_id, device, '"1"') for device in range(len(DEVICES))])

        assert sorted(status for status, _, _ in first) == [200] + [412] * (len(DEVICES) - 1)
        for status, headers, body in first:
            assert headers.get("ETag") == '"2"', (status, headers, body)  # the 412's too: the version to pin
            if status == 412:
                assert body["detail"] == "The cart is at version 2, not 1; reload it and try again.", body
        # Each refused device sends its change again at once with the others: none is lost or made twice.
        at_once(
            [partial(until_in, server, token, cart_id, n, answer) for n, answer in enumerate(first) if answer[0] == 412]
        )
        status, headers, cart = send(server, token, "GET", f"/api/carts/{cart_id}")
        assert sorted(line["sku"] for line in cart["items"]) == sorted(DEVICES)
        assert [line["quantity"] for line in cart["items"]] == [1] * len(DEVICES)
        assert (cart["version"], headers["ETag"]) == (1 + len(DEVICES), f'"{1 + len(DEVICES)}"')


def checkout(url: str, token: str, cart_id: str, key: str) -> Answer:
    return send(url, token, "POST", f"/api/carts/{cart_id}/checkout", {}, Idempotency_Key=key)


def key_of(round_: int, device: int, keys: str) -> str:
    """A retry sends its first send's key; another device a key of its own."""
    return f"pay-{round_}" if keys == "same" else f"pay-{round_}-device-{device}"


@pytest.mark.parametrize("keys", ["same", "another"], ids=["a-retry", "another-device"])
def test_a_checkout_sent_while_another_of_the_cart_runs_gets_the_order_or_checkout_in_progress(
    server: str, token: str, keys: str
) -> None:
    """TEA-003's stock is the cart's units: the first send's reservation holds all of them."""
    from inventory.services import receive_stock

    rounds, first_on_hand = 4, stock("TEA-003")[0]
    for n in range(rounds):
        cart_id = new_cart(server, token, ("TEA-003", first_on_hand))

        answers = at_once([partial(checkout, server, token, cart_id, key_of(n, device, keys)) for device in range(3)])

        placed = {body["order_id"] for status, _, body in answers if status == 200}
        assert len(placed) == 1 and orders_of(cart_id) == 1, answers
        for status, headers, body in answers:
            if status == 200:
                continue
            assert status == 409, body  # never "Out of stock": the units are this cart's own
            assert body["title"] in {"Checkout in progress", "Cart already checked out"}, body
            if body["title"] == "Checkout in progress":
                assert (body["type"], headers.get("Retry-After")) == ("/api/problems/checkout-in-progress", "1")
        # Sent again afterwards (by a fourth device: a key not sent yet when they differ): the same key
        # answers with the order, another key is told the cart is checked out.
        status, _, again = checkout(server, token, cart_id, key_of(n, 3, keys))
        if keys == "same":
            assert (status, again["order_id"]) == (200, placed.pop()), again
        else:
            assert (status, again["title"]) == (409, "Cart already checked out"), again
        assert stock("TEA-003") == (0, 0)  # the order took the units; nothing is held by a repeat
        receive_stock("TEA-003", first_on_hand, actor="test")  # the next round's units


def test_a_checkout_retried_while_its_first_send_runs_keeps_no_units_back(server: str, token: str) -> None:
    """Ample stock: every repeat reserved its own units; those of a repeat answered with the first
    order were never released (until the sweep, STOCK_RESERVATION_SECONDS later)."""
    on_hand, rounds = stock("COF-002")[0], 6
    for n in range(rounds):
        cart_id = new_cart(server, token, ("COF-002", 2))

        answers = at_once([partial(checkout, server, token, cart_id, f"pay-{n}")] * 3)

        assert [status for status, _, _ in answers] == [200] * 3, answers
        assert len({body["order_id"] for _, _, body in answers}) == 1 and orders_of(cart_id) == 1
    assert stock("COF-002") == (on_hand - 2 * rounds, 0)


def test_a_retry_of_a_change_that_changed_nothing_does_not_undo_the_other_devices_change(
    server: str, token: str
) -> None:
    """Device A sets the quantity the line has (nothing changes) and its answer is lost; device B
    sets 5; A sends again with its key. The retry was decided again and set 3 over B's 5."""
    cart_id = new_cart(server, token, ("COF-001", 3))
    line = f"/api/carts/{cart_id}/items/COF-001"
    first = send(server, token, "PUT", line, {"quantity": 3}, Idempotency_Key="a-sets-3")
    other = send(server, token, "PUT", line, {"quantity": 5})

    retries = at_once([partial(send, server, token, "PUT", line, {"quantity": 3}, Idempotency_Key="a-sets-3")] * 2)

    assert (first[0], first[1]["ETag"], other[0], other[1]["ETag"]) == (200, '"2"', 200, '"3"')
    for status, headers, body in retries:  # the first outcome: the cart as A's first send found it
        assert (status, headers["ETag"], body["items"][0]["quantity"]) == (200, '"2"', 3), body
    status, headers, cart = send(server, token, "GET", f"/api/carts/{cart_id}")
    assert (headers["ETag"], cart["items"][0]["quantity"]) == ('"3"', 5)  # B's change stands


def follow(url: str, token: str, cart_id: str) -> list[int]:
    """Every version of the cart's stream, page by page (7 a page), following each `Link`."""
    path, versions = f"/api/carts/{cart_id}/events?limit=7", []
    while path:
        status, headers, page = send(url, token, "GET", path)
        assert status == 200, page
        versions += [event["version"] for event in page]
        path = headers.get("Link", "").removeprefix("<").partition(">")[0]
    return versions


def test_paging_the_events_while_two_devices_change_the_cart_lists_every_version_once(server: str, token: str) -> None:
    cart_id = new_cart(server, token, ("COF-001", 1), ("TEA-001", 2))  # versions 1-3

    def device(sku: str) -> list[int]:
        """Sets its line to 1, 2, ... 15; the versions its changes made."""
        made = []
        for quantity in range(1, 16):
            status, headers, _ = send(server, token, "PUT", f"/api/carts/{cart_id}/items/{sku}", {"quantity": quantity})
            assert status == 200
            made.append(int(headers["ETag"].strip('"')))
        return made

    readers = [partial(follow, server, token, cart_id)] * 2
    coffee, tea, *read = at_once([partial(device, "COF-001"), partial(device, "TEA-001"), *readers])

    for versions in read:  # paged while the devices wrote
        assert versions == list(range(1, len(versions) + 1)), versions
    # COF-001 set to 1 changed nothing (its answer is version 3 or later, made by the other device); the rest did.
    changes = sorted(set(coffee[1:]) | set(tea))
    assert changes == list(range(4, 4 + 14 + 15))
    assert follow(server, token, cart_id) == list(range(1, 4 + 14 + 15))


def test_a_checkout_while_another_device_changes_the_cart_takes_from_stock_what_it_orders(
    server: str, token: str
) -> None:
    """Device A checks out a line of 1 while device B sets it to 5. The checkout reserved the 1 it read;
    when B's change came between the reservation and the order, the handler decided the order again on
    the changed cart: 5 ordered, 1 taken from stock (69 units ordered for 29 taken, in 25 tries)."""
    from inventory.services import receive_stock

    receive_stock("COF-003", 100, actor="test")
    on_hand, ordered = stock("COF-003")[0], 0
    for n in range(12):
        cart_id = new_cart(server, token, ("COF-003", 1))

        change = partial(send, server, token, "PUT", f"/api/carts/{cart_id}/items/COF-003", {"quantity": 5})
        placed, changed = at_once(
            [partial(checkout, server, token, cart_id, f"pay-{n}"), partial(later, n % 4 / 100, change)]
        )

        assert placed[0] == 200, placed
        assert changed[0] in {200, 409}, changed  # before the order, or refused: the cart is checked out
        ordered += placed[2]["lines"][0]["quantity"]
        assert stock("COF-003") == (on_hand - ordered, 0), (n, placed[2]["lines"])
