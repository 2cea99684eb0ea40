"""Timed coupon holds: a one-time coupon held by a cart that does not check out in
COUPON_HOLD_SECONDS is released by `ClaimReleased` ("hold expired"), seen in the claim's
stream and on the cart's history page; a cart that checked out keeps its coupon."""

import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from carts.checkout import CouponUsedError, place_order
from claims import holds
from claims import services as claims
from claims.validator import replay_decisions
from eventlog import store
from eventlog.models import Event
from kernel.principal import Principal
from tests.claim_helpers import claim_consumers_running, eventually
from tests.integration.test_claims_coupons import shopper_with_a_cart

pytestmark = [pytest.mark.django_db(transaction=True)]
STREAM = "claim-coupon-ONCE20"
HOLD = 0.3


def held_coupon(name: str) -> tuple[str, claims.ClaimTicket]:
    """A cart whose claim on ONCE20 was accepted, and which then does not check out."""
    _, cart_id = shopper_with_a_cart(name)
    ticket = claims.request("coupon", "ONCE20", str(Principal.cart(cart_id)))
    claim = claims.wait(ticket.claim_id, timeout=15)
    assert claim is not None and claim.status == "accepted"
    return cart_id, ticket


def types() -> list[str]:
    return [e.type for e in store.read_stream(STREAM)]


@pytest.mark.parametrize("transport", ["table", pytest.param("kafka", marks=pytest.mark.kafka)])
def test_a_lapsed_hold_is_released_by_an_event_and_another_cart_can_use_the_coupon(
    catalog: None, settings, transport: str, request
) -> None:
    if transport == "kafka":
        request.getfixturevalue("kafka")
    settings.COUPON_HOLD_SECONDS = 600
    settings.CLAIM_WAIT_SECONDS = 15
    with claim_consumers_running(transport=transport):
        idle_cart, ticket = held_coupon("idle")
        assert holds.expire_holds() == []  # not yet
        settings.COUPON_HOLD_SECONDS = HOLD
        time.sleep(HOLD + 0.05)
        assert holds.expire_holds() == [ticket.claim_id]
        assert holds.expire_holds() == []  # idempotent
        eventually(lambda: getattr(claims.find(ticket.claim_id), "status", None) == "released")
        context, other_cart = shopper_with_a_cart("next")
        order = place_order(context, other_cart, "ONCE20")
    assert order.state.coupon == "ONCE20"
    events = store.read_stream(STREAM)
    release = next(e for e in events if e.type == "ClaimReleased")
    accepted = next(e for e in events if e.type == "ClaimAccepted" and e.data["claim_id"] == ticket.claim_id)
    assert release.data == {"claim_id": ticket.claim_id, "reason": "hold expired"}
    assert release.occurred_at == accepted.occurred_at + timedelta(seconds=HOLD)  # event time, not sweep time
    assert release.metadata["causation_id"] == str(accepted.event_id)
    assert replay_decisions(events) == {e.data["claim_id"]: e.type for e in events if e.type.startswith("ClaimAcc")}
    client = Client()
    client.force_login(get_user_model().objects.get(username="idle"))
    page = client.get(f"/carts/{idle_cart}/history/").content.decode()
    assert "ClaimAccepted" in page and "ClaimReleased" in page and "hold expired" in page


def test_a_checkout_frees_a_lapsed_hold_of_another_cart_itself_when_no_sweep_ran(catalog: None, settings) -> None:
    settings.COUPON_HOLD_SECONDS = HOLD
    settings.CLAIM_WAIT_SECONDS = 15
    with claim_consumers_running():
        held_coupon("idle")
        time.sleep(HOLD + 0.05)
        context, cart_id = shopper_with_a_cart("next")
        assert place_order(context, cart_id, "ONCE20").state.coupon == "ONCE20"
    lapsed = ["ClaimRequested", "ClaimAccepted", "ClaimReleased"]
    assert types() == [*lapsed, "ClaimRequested", "ClaimAccepted", "ClaimUsed"]


def test_a_cart_that_checked_out_keeps_its_coupon_after_the_hold_time(catalog: None, settings) -> None:
    settings.COUPON_HOLD_SECONDS = HOLD
    settings.CLAIM_WAIT_SECONDS = 15
    with claim_consumers_running():
        context, cart_id = shopper_with_a_cart("buyer")
        place_order(context, cart_id, "ONCE20")
        time.sleep(HOLD + 0.05)
        assert holds.expire_holds() == []
        late, late_cart = shopper_with_a_cart("late")
        with pytest.raises(CouponUsedError):
            place_order(late, late_cart, "ONCE20")
    assert types().count("ClaimReleased") == 0


@pytest.mark.parametrize(
    "sweep_lands", ["after the wait", pytest.param("inside the order's transaction", marks=pytest.mark.postgres)]
)
def test_a_hold_released_before_the_order_commits_refuses_the_order_and_keeps_the_cart_open(
    catalog: None, settings, sweep_lands: str
) -> None:
    # On SQLite the order's transaction holds the write lock: a sweep cannot land inside it.
    from carts import checkout as checkout_module
    from carts.handler import load

    settings.COUPON_HOLD_SECONDS = HOLD
    settings.CLAIM_WAIT_SECONDS = 15
    patched = checkout_module.claims if sweep_lands == "after the wait" else checkout_module.services
    name = "wait" if sweep_lands == "after the wait" else "checkout"
    real = getattr(patched, name)

    def sweep_first(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs) if name == "wait" else None
        released: list[str] = []
        time.sleep(HOLD + 0.05)
        sweeper = threading.Thread(target=sweep_in_own_connection, args=(released,))  # another process, in effect
        sweeper.start()
        sweeper.join()
        assert released  # the sweep wins the race on the claim stream
        return result if name == "wait" else real(*args, **kwargs)

    with claim_consumers_running(), pytest.MonkeyPatch.context() as patch:
        context, cart_id = shopper_with_a_cart("slow")
        patch.setattr(patched, name, sweep_first)
        with pytest.raises(checkout_module.CouponHoldExpiredError):
            place_order(context, cart_id, "ONCE20")
    assert load(cart_id).status == "open"
    assert not Event.objects.filter(type="CheckedOut").exists()
    assert types() == ["ClaimRequested", "ClaimAccepted", "ClaimReleased"]


def sweep_in_own_connection(released: list[str]) -> None:
    from django.db import connection

    try:
        released.extend(holds.expire_holds())
    finally:
        connection.close()


@pytest.mark.postgres
def test_concurrent_sweeps_release_a_hold_once(catalog: None, settings) -> None:
    settings.COUPON_HOLD_SECONDS = HOLD
    with claim_consumers_running():
        held_coupon("idle")
    time.sleep(HOLD + 0.05)
    released: list[list[str]] = []
    barrier = threading.Barrier(4)

    def sweep() -> None:
        from django.db import connection

        barrier.wait()
        try:
            released.append(holds.expire_holds())
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(r) for r in released) == [0, 0, 0, 1]
    assert types().count("ClaimReleased") == 1


def test_the_sweep_command_and_task_release_lapsed_holds(catalog: None, settings) -> None:
    from io import StringIO

    from django.core.management import call_command

    from claims.tasks import expire_coupon_holds

    settings.COUPON_HOLD_SECONDS = HOLD
    with claim_consumers_running():
        held_coupon("idle")
    time.sleep(HOLD + 0.05)
    out = StringIO()
    call_command("expire_coupon_holds", stdout=out)
    assert "released 1 hold(s)" in out.getvalue()
    assert expire_coupon_holds.delay().get() == []  # eager without a broker; nothing left to release
