"""Waiting for a claim's decision is short and capped: with the validator down, a burst of
sign-ups cannot take every server thread from the catalog."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from rest_framework.test import APIClient

from claims import services as claims
from claims.waiting import WAITERS

pytestmark = [pytest.mark.django_db(transaction=True)]
SERVER_THREADS = 4  # like one gunicorn worker with --threads 4


def timed(method: str, path: str, body: dict[str, str] | None = None) -> tuple[int, float]:
    """One request on a server thread: (status, seconds it took)."""
    from django.db import connection

    started = time.monotonic()
    try:
        client = APIClient()
        response = client.post(path, body, format="json") if method == "POST" else client.get(path)
        return response.status_code, time.monotonic() - started
    finally:
        connection.close()


def test_sixteen_sign_ups_with_the_validator_down_leave_the_catalog_responsive(catalog: None, settings) -> None:
    settings.CLAIM_WAIT_SECONDS = 1.0
    settings.CLAIM_MAX_WAITERS = 2
    # Hashing sixteen passwords is CPU the machine spends either way; this test is about waiting.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with ThreadPoolExecutor(max_workers=SERVER_THREADS) as server:
        submitted = time.monotonic()
        sign_ups = [
            server.submit(timed, "POST", "/api/accounts", {"username": f"burst{i}", "password": "a-long-passphrase"})
            for i in range(16)
        ]
        catalog_request = server.submit(timed, "GET", "/api/products")
        catalog_status, _ = catalog_request.result(timeout=30)
        catalog_latency = time.monotonic() - submitted  # queueing behind the sign-ups included
        answers = [future.result(timeout=30) for future in sign_ups]
    assert catalog_status == 200
    assert {status for status, _ in answers} == {202}
    # Uncapped, 16 one-second waits on 4 threads hold the catalog ~4 s; capped, the two waiters hold
    # two threads for one second and everyone else is answered at once.
    assert catalog_latency < 2.5, catalog_latency
    assert sum(seconds >= settings.CLAIM_WAIT_SECONDS for _, seconds in answers) <= 4
    assert max(seconds for _, seconds in answers) < settings.CLAIM_WAIT_SECONDS + 1.5
    assert WAITERS.count == 0  # every slot given back


def test_with_every_slot_taken_a_wait_looks_once_and_returns_at_once(settings) -> None:
    ticket = claims.request("coupon", "ONCE20", claimant="cart:x")
    settings.CLAIM_MAX_WAITERS = 0
    started = time.monotonic()
    claim = claims.wait(ticket.claim_id, timeout=5)
    assert time.monotonic() - started < 0.5
    assert claim is not None and claim.status == "pending"
    settings.CLAIM_MAX_WAITERS = 1
    started = time.monotonic()
    claims.wait(ticket.claim_id, timeout=0.3)
    assert 0.3 <= time.monotonic() - started < 1.0  # a slot: it waits, bounded by the timeout
