"""The sweeps that `make run` keeps running (`expire_coupon_holds --every`, `expire_stock_reservations
--every`) outlive a database outage: the same process, without a restart, releases a coupon hold or
a stock reservation that lapses after the outage."""

import time
from pathlib import Path

import pytest

from claims import services as claims
from eventlog import store
from inventory import reservations
from inventory.models import StockLevel
from inventory.services import receive_stock
from kernel.principal import Principal
from tests.claim_helpers import claim_consumers_running
from tests.fault_helpers import outage, report, start_manage, stop, wait_for
from tests.integration.test_claims_coupons import shopper_with_a_cart

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HOLD_SECONDS = 6


def test_the_repeating_sweep_survives_a_database_outage_and_releases_a_hold_that_lapses_after_it(
    catalog: None, settings, tmp_path: Path
) -> None:
    settings.CLAIM_WAIT_SECONDS = 15
    log = tmp_path / "sweep.log"
    with claim_consumers_running():
        _, cart_id = shopper_with_a_cart("idle")
        ticket = claims.request("coupon", "ONCE20", str(Principal.cart(cart_id)))
        claim = claims.wait(ticket.claim_id, timeout=15)
        assert claim is not None and claim.status == "accepted"
        accepted_at = time.monotonic()
        sweep = start_manage(
            ["expire_coupon_holds", "--every", "0.2"], log, "sweep", COUPON_HOLD_SECONDS=str(HOLD_SECONDS)
        )
        try:
            wait_for(lambda: "released 0 hold(s)" in log.read_text(), timeout=30, what="a first sweep")
            outage(3)  # every sweep now fails; the hold lapses only after the database is back
            assert time.monotonic() - accepted_at < HOLD_SECONDS, "the outage must end before the hold lapses"
            took = wait_for(
                lambda: "ClaimReleased" in [e.type for e in store.read_stream(ticket.stream_id)],
                timeout=60,
                what="the lapsed hold to be released",
            )
            report(f"hold sweep after a 3 s outage: released {took:.2f}s after the database came back")
            assert sweep.poll() is None, "expire_coupon_holds exited"
        finally:
            stop(sweep)
    text = log.read_text()
    assert "sweep failed" in text and "retrying in" in text
    assert "released 1 hold(s)" in text
    release = next(e for e in store.read_stream(ticket.stream_id) if e.type == "ClaimReleased")
    assert release.data == {"claim_id": ticket.claim_id, "reason": "hold expired"}


def test_the_stock_reservation_sweep_survives_a_database_outage_and_releases_a_lapsed_reservation(
    catalog: None, settings, tmp_path: Path
) -> None:
    settings.STOCK_RESERVATION_SECONDS = HOLD_SECONDS
    receive_stock("COF-001", 5, actor="test")
    log = tmp_path / "stock-sweep.log"
    sweep = start_manage(["expire_stock_reservations", "--every", "0.2"], log, "stock-sweep")
    try:
        wait_for(lambda: "released 0 reservation(s)" in log.read_text(), timeout=30, what="a first sweep")
        dead = reservations.reserve([("COF-001", 2)], for_cart="a-checkout-that-died", actor="test")
        reserved_at = time.monotonic()
        outage(3)  # every sweep now fails; the reservation lapses only after the database is back
        assert time.monotonic() - reserved_at < HOLD_SECONDS, "the outage must end before the reservation lapses"
        took = wait_for(
            lambda: StockLevel.objects.get(sku="COF-001").reserved == 0, timeout=60, what="the reservation released"
        )
        report(f"stock sweep after a 3 s outage: released {took:.2f}s after the database came back")
        assert sweep.poll() is None, "expire_stock_reservations exited"
    finally:
        stop(sweep)
    text = log.read_text()
    assert "sweep failed" in text and "retrying in" in text
    assert "released 1 reservation(s)" in text
    released = [e for e in store.read_stream("stock-COF-001") if e.type == "ReservationReleased"]
    assert [e.data for e in released] == [
        {"sku": "COF-001", "reservation": dead.id, "quantity": 2, "reason": "expired"}
    ]
