"""Sign-up by claim: one winner among racers, 202 while undecided, nothing lost if the requester dies."""

import threading
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.models import PendingSignUp
from claims import services as claims
from eventlog.models import Event
from tests.claim_helpers import claim_consumers_running, eventually
from tests.fault_helpers import terminate_backends

pytestmark = [pytest.mark.django_db(transaction=True)]


def sign_up(username: str) -> int:
    response = APIClient().post("/api/accounts", {"username": username, "password": "a-long-passphrase"}, format="json")
    return int(response.status_code)


@pytest.mark.postgres
@pytest.mark.parametrize("transport", ["table", pytest.param("kafka", marks=pytest.mark.kafka)])
def test_twenty_concurrent_sign_ups_for_one_name_make_exactly_one_account(settings, transport: str, request) -> None:
    settings.CLAIM_WAIT_SECONDS = 30
    settings.CLAIM_MAX_WAITERS = 20  # every racer waits for its answer here
    if transport == "kafka":
        request.getfixturevalue("kafka")
    names = ["Alice", "ALICE", "alice", "aLiCe"] * 5
    statuses: list[int] = []
    with claim_consumers_running(transport=transport):
        barrier = threading.Barrier(len(names))

        def racer(name: str) -> None:
            from django.db import connection

            barrier.wait()
            try:
                statuses.append(sign_up(name))
            finally:
                connection.close()

        threads = [threading.Thread(target=racer, args=(name,)) for name in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert Counter(statuses) == {201: 1, 409: 19}
    assert get_user_model().objects.filter(username__iexact="alice").count() == 1
    decisions = Counter(Event.objects.filter(stream_id="claim-username-alice").values_list("type", flat=True))
    assert decisions == {"ClaimRequested": 20, "ClaimAccepted": 1, "ClaimRejected": 19}


def test_an_undecided_sign_up_answers_202_and_the_location_resolves_once_the_validator_runs(settings) -> None:
    settings.CLAIM_WAIT_SECONDS = 0.2
    client = APIClient()
    response = client.post("/api/accounts", {"username": "patient", "password": "a-long-passphrase"}, format="json")
    assert response.status_code == 202
    location = response["Location"]
    pending = client.get(location)  # the validator has not even seen it, and the claim is there all the same
    assert (pending.status_code, pending.json()["status"]) == (200, "pending")
    with claim_consumers_running():
        claim = claims.wait(response.json()["claim_id"], timeout=10)
        assert claim is not None and claim.status == "accepted"
        eventually(get_user_model().objects.filter(username="patient").exists)
    assert client.get(location).json()["status"] == "accepted"


def test_a_requester_that_dies_after_claiming_loses_no_name(settings) -> None:
    # What sign_up does before it waits; then the requester "dies" and never waits.
    from django.contrib.auth.hashers import make_password

    PendingSignUp.objects.create(claim_id="c-dead", username="Orphan", password_hash=make_password("a-long-passphrase"))
    claims.request("username", "Orphan", claimant="signup:c-dead", claim_id="c-dead")
    with claim_consumers_running():
        eventually(get_user_model().objects.filter(username="Orphan").exists)
    user = get_user_model().objects.get(username="Orphan")
    assert user.check_password("a-long-passphrase")
    assert not PendingSignUp.objects.exists()


def test_an_accepted_claim_without_a_sign_up_behind_it_is_released() -> None:
    ticket = claims.request("username", "ghost", claimant="signup:nobody")
    with claim_consumers_running():
        eventually(lambda: getattr(claims.find(ticket.claim_id), "status", None) == "released")
    with claim_consumers_running(), pytest.MonkeyPatch.context() as patch:
        from django.conf import settings as live

        patch.setattr(live, "CLAIM_WAIT_SECONDS", 10)
        assert sign_up("Ghost") == 201


def test_my_orders_shows_the_claim_that_made_the_username_unique(settings) -> None:
    from django.test import Client

    settings.CLAIM_WAIT_SECONDS = 10
    with claim_consumers_running():
        assert sign_up("Historian") == 201
    client = Client()
    client.force_login(get_user_model().objects.get(username="Historian"))
    page = client.get("/orders/").content.decode()
    assert "Your username" in page and "ClaimRequested" in page and "ClaimAccepted" in page


@pytest.mark.postgres
def test_a_sign_up_whose_session_is_cut_while_it_waits_answers_pending_and_the_account_follows(settings) -> None:
    """Its claim is committed before it waits: a database error in the wait answered the outage's 503,
    "nothing was changed", and the account was made all the same (an operator cutting sessions saw a
    retry of the same name refused as taken). Now pending, with the claim to poll."""
    settings.CLAIM_WAIT_SECONDS = 30  # no validator runs yet: the request waits for it
    answers: list[Any] = []

    def signing_up() -> None:
        from django.db import connection

        try:
            body = {"username": "cutoff", "password": "a-long-passphrase"}
            answers.append(APIClient().post("/api/accounts", body, format="json"))
        finally:
            connection.close()

    thread = threading.Thread(target=signing_up)
    thread.start()
    eventually(lambda: Event.objects.filter(type="ClaimRequested").exists())  # committed; the request waits
    assert terminate_backends("%") >= 1  # every session of the test database but this one: the request's
    thread.join(timeout=30)

    (answer,) = answers
    assert answer.status_code == 202
    claim_id = answer.json()["claim_id"]
    assert answer["Location"] == f"/api/claims/{claim_id}"
    with claim_consumers_running():
        eventually(lambda: get_user_model().objects.filter(username="cutoff").exists())
    claim = claims.find(claim_id)
    assert claim is not None and claim.status == "accepted"
