"""Shipping details sealed per person, shown to their owner, and forgotten by destroying the key.

Both backends. The log holds only the sealed box; `DELETE /api/accounts/me`
destroys the key, so every view, and every view rebuilt from position 0, reads
`[erased]`, while the order itself (lines, total) stays.
"""

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from knox.models import AuthToken

from eventlog import store
from eventlog.models import Event
from privacy import streams
from privacy.models import DataKey
from privacy.personal import reveal
from projections import registry
from projections.models import OrderHistory
from rebuilds import service
from rebuilds.models import RunStatus
from tests.e2e.api_helpers import assert_problem, log_snapshot

from .personal_data_helpers import ADA, BOB, PLAINTEXT, as_forgotten, check_out, shopper
from .rebuild_support import drain_consumers

pytestmark = pytest.mark.django_db(transaction=True)
ERASED = {"name": "[erased]", "email": "[erased]", "address": "[erased]"}


def orders_of(client: object) -> list[dict[str, object]]:
    drain_consumers()
    response = client.get("/api/orders")  # type: ignore[attr-defined]
    assert response.status_code == 200, response.content
    return list(response.json()["results"])


def checked_out_data(order_id: str) -> dict[str, object]:
    return Event.objects.get(type="CheckedOut", data__order_id=order_id).data  # type: ignore[no-any-return]


def test_the_owner_reads_their_shipping_details_and_the_log_holds_only_the_sealed_box(catalog: None) -> None:
    client, person = shopper("ada")
    order = check_out(client, ADA)
    [listed] = orders_of(client)
    assert (listed["order_id"], listed["total"], listed["shipping"]) == (order["order_id"], "25.00", ADA)
    assert list(listed["shipping"]) == ["name", "email", "address"]  # type: ignore[call-overload]  # the schema's order
    box = checked_out_data(order["order_id"])["shipping"]
    assert box["key_id"] == DataKey.objects.get(person=person).key_id  # type: ignore[index]
    stored = json.dumps(list(Event.objects.values_list("data", flat=True)))
    assert not [text for text in PLAINTEXT if text in stored]


def test_an_order_without_shipping_details_shows_none(catalog: None) -> None:
    client, _ = shopper("ada")
    check_out(client, None)
    assert orders_of(client)[0]["shipping"] is None


def test_forgetting_destroys_the_key_records_it_and_closes_the_account(catalog: None) -> None:
    client, person = shopper("ada")
    check_out(client, ADA)
    response = client.delete("/api/accounts/me")
    assert response.status_code == 204
    assert client.get("/api/orders").status_code == 401  # the token is revoked
    user = get_user_model().objects.get(username="ada")
    assert not user.is_active and not AuthToken.objects.filter(user=user).exists()
    assert not DataKey.objects.filter(person=person).exists()
    [forgotten] = store.read_stream(streams.stream_id(person))
    assert (forgotten.type, forgotten.data) == ("PersonForgotten", {"person": person, "keys_destroyed": 1})


def test_after_forgetting_the_orders_and_events_read_erased_and_the_order_itself_stays(catalog: None) -> None:
    client, _ = shopper("ada")
    order = check_out(client, ADA)
    drain_consumers()
    assert client.delete("/api/accounts/me").status_code == 204
    [listed] = orders_of(as_forgotten("ada"))
    assert (listed["order_id"], listed["total"], listed["shipping"]) == (order["order_id"], "25.00", ERASED)
    cart_id = order["cart"]["id"]
    events = as_forgotten("ada").get(f"/api/carts/{cart_id}/events").json()
    assert [e["data"]["shipping"] for e in events if e["type"] == "CheckedOut"] == [ERASED]


def test_staff_see_the_shipping_details_until_the_person_is_forgotten(catalog: None, admin_client: Client) -> None:
    client, _ = shopper("ada")
    check_out(client, ADA)
    drain_consumers()
    page = admin_client.get("/admin/projections/orderhistory/").content.decode()
    assert "Ada Quillfeather / ada.quill@example.org / 7 Lantern Row, Cogsford" in page
    client.delete("/api/accounts/me")
    page = admin_client.get("/admin/projections/orderhistory/").content.decode()
    assert "[erased] / [erased] / [erased]" in page and "Quillfeather" not in page


def test_every_view_rebuilt_from_position_0_after_forgetting_still_reads_erased(catalog: None) -> None:
    ada, _ = shopper("ada")
    bob, _ = shopper("bob")
    check_out(ada, ADA)
    check_out(bob, BOB)
    drain_consumers()
    ada.delete("/api/accounts/me")
    for projection in registry.all_projections():
        assert service.rebuild(projection.NAME).status == RunStatus.SWAPPED, projection.NAME
    shown = {row.account: reveal(row.shipping) for row in OrderHistory.objects.all()}
    assert sorted(shown.values(), key=str) == sorted([ERASED, BOB], key=str)  # Bob is not forgotten


@pytest.mark.parametrize(
    ("shipping", "errors"),
    [
        ({**ADA, "email": "not-an-address"}, {"email": ["Enter a valid email address."]}),
        ({**ADA, "name": "x" * 101}, {"name": ["Ensure this field has no more than 100 characters."]}),
        ({**ADA, "address": ""}, {"address": ["This field may not be blank."]}),
        ({"name": ADA["name"], "email": ADA["email"]}, {"address": ["This field is required."]}),
        ({**ADA, "name": 5}, {"name": ["A string is required."]}),
    ],
)
def test_invalid_shipping_details_are_refused_per_field_and_append_nothing(
    catalog: None, shipping: dict[str, object], errors: dict[str, list[str]]
) -> None:
    client, _ = shopper("ada")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    before = log_snapshot()
    response = client.post(f"/api/carts/{cart_id}/checkout", {"shipping": shipping}, format="json")
    assert assert_problem(response, 400)["errors"] == {"shipping": errors}
    assert log_snapshot() == before


def test_a_repeated_checkout_replays_and_other_shipping_details_under_the_same_key_are_refused(catalog: None) -> None:
    client, _ = shopper("ada")
    cart_id = client.post("/api/carts").json()["id"]
    client.post(f"/api/carts/{cart_id}/items", {"sku": "COF-001", "quantity": 1}, format="json")
    url, key = f"/api/carts/{cart_id}/checkout", {"Idempotency-Key": "order-1"}
    first = client.post(url, {"shipping": ADA}, format="json", headers=key)
    repeat = client.post(url, {"shipping": ADA}, format="json", headers=key)
    assert (first.status_code, repeat.status_code) == (200, 200)
    assert repeat.json()["order_id"] == first.json()["order_id"]
    assert_problem(client.post(url, {"shipping": BOB}, format="json", headers=key), 422)
