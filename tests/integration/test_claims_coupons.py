"""One-time coupons: two carts race for one coupon, round after round; exactly one wins."""

import threading

import pytest
from django.core.management import call_command

from accounts.services import principal
from carts import services
from carts.checkout import CouponUsedError, place_order
from carts.handler import Context, load
from eventlog.models import Event
from tests.claim_helpers import claim_consumers_running

pytestmark = [pytest.mark.django_db(transaction=True)]


def shopper_with_a_cart(name: str) -> tuple[Context, str]:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username=name, password="a-long-passphrase")
    context = Context(actor=principal(user))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "KIT-001", 2)
    return context, cart_id


@pytest.mark.postgres
@pytest.mark.parametrize("transport", ["table", pytest.param("kafka", marks=pytest.mark.kafka)])
def test_two_carts_racing_for_a_one_time_coupon_give_exactly_one_discounted_order(
    catalog: None, settings, transport: str, request
) -> None:
    settings.CLAIM_WAIT_SECONDS = 30
    if transport == "kafka":
        request.getfixturevalue("kafka")
    with claim_consumers_running(transport=transport):
        for round_ in range(5):
            code = f"RACE{round_}"
            call_command("create_coupon", code, "--percent", "25", "--once", verbosity=0)
            racers = [shopper_with_a_cart(f"r{round_}a"), shopper_with_a_cart(f"r{round_}b")]
            outcomes: dict[str, str] = {}
            barrier = threading.Barrier(2)

            def checkout(
                context: Context,
                cart_id: str,
                code: str = code,
                barrier: threading.Barrier = barrier,
                outcomes: dict[str, str] = outcomes,
            ) -> None:
                from django.db import connection

                barrier.wait()
                try:
                    place_order(context, cart_id, code)
                    outcomes[cart_id] = "ordered"
                except CouponUsedError:
                    outcomes[cart_id] = "coupon used"
                finally:
                    connection.close()

            threads = [threading.Thread(target=checkout, args=racer) for racer in racers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(outcomes.values()) == ["coupon used", "ordered"]
            for _, cart_id in racers:
                state = load(cart_id)
                if outcomes[cart_id] == "ordered":
                    assert (state.status, state.coupon, str(state.discount)) == ("checked_out", code, "12.00")
                else:
                    assert state.status == "open" and [line.sku for line in state.lines] == ["KIT-001"]
            assert Event.objects.filter(type="CheckedOut", data__coupon=code).count() == 1


def test_a_checkout_that_fails_after_its_claim_was_accepted_releases_the_coupon(
    catalog: None, settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from carts import checkout as checkout_module
    from carts.errors import ConcurrencyConflictError
    from claims.models import Claim

    settings.CLAIM_WAIT_SECONDS = 10

    def fails(*args: object, **kwargs: object) -> None:  # fault injection: the order cannot be placed
        raise ConcurrencyConflictError("busy")

    with claim_consumers_running():
        context, cart_id = shopper_with_a_cart("first")
        with monkeypatch.context() as patch:
            patch.setattr(checkout_module.services, "checkout", fails)
            with pytest.raises(ConcurrencyConflictError):
                place_order(context, cart_id, "ONCE20")
        assert Claim.objects.get(claimant=f"cart:{cart_id}").status in {"accepted", "released"}
        other, other_cart = shopper_with_a_cart("second")
        order = place_order(other, other_cart, "once20")
    assert order.state.coupon == "ONCE20"
    assert Claim.objects.get(claimant=f"cart:{cart_id}").status == "released"


def test_a_stale_if_match_on_a_one_time_coupon_checkout_is_a_412_that_claims_nothing(catalog: None) -> None:
    from dataclasses import replace

    from carts.errors import StaleVersionError

    context, cart_id = shopper_with_a_cart("first")  # version 2: started, one add
    before = list(Event.objects.order_by("position").values_list("position", flat=True))
    with pytest.raises(StaleVersionError):
        place_order(replace(context, expected_version=1), cart_id, "ONCE20")
    # No ClaimRequested/ClaimAccepted/ClaimReleased on the coupon's stream, no reservation: nothing at all.
    assert list(Event.objects.order_by("position").values_list("position", flat=True)) == before
    assert load(cart_id).status == "open"


def test_the_cart_history_page_shows_the_coupon_claim_and_its_decision(catalog: None, settings) -> None:
    from django.test import Client

    settings.CLAIM_WAIT_SECONDS = 10
    with claim_consumers_running():
        context, cart_id = shopper_with_a_cart("historian")
        place_order(context, cart_id, "ONCE20")
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username="historian"))
    page = client.get(f"/carts/{cart_id}/history/").content.decode()
    assert "Coupon claims" in page and "ClaimRequested" in page and "ClaimAccepted" in page
