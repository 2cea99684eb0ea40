"""Rebuilds are visible and startable: rebuilds.status.summary(), the staff page, the Celery task."""

import threading
import time
from collections.abc import Iterator

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from eventlog.sessions import connection_kwargs
from eventlog.stores.postgres import SLOW_LOCK
from rebuilds import status, tasks
from rebuilds.models import RebuildRun
from tests.fault_helpers import outage
from tests.store_contract import WAIT

from .rebuild_support import shop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("operator", password="x" * 12, is_staff=True))
    return client


def test_summary_shows_each_projection_and_its_latest_run(seeded_catalog: None) -> None:
    shop(10)
    result = tasks.rebuild_projection.apply(args=["cart_view"]).get()  # the Celery task, run in place

    info = status.summary()["cart_view"]

    assert result["status"] == "swapped" and info["rebuild"]["id"] == result["run_id"]
    assert info["rebuild"]["status"] == "swapped" and info["live_version"] == info["code_version"]
    assert info["rebuild"]["events_done"] == result["events_done"] > 0
    assert info["rebuild"]["position"] == info["rebuild"]["head"]


def test_the_staff_page_shows_rebuilds_and_starts_one(
    seeded_catalog: None, staff_client: Client, started: list[threading.Thread]
) -> None:
    shop(5)
    response = staff_client.post("/staff/rebuilds/cart_view/start/", {"verify": "1"}, follow=True)
    assert response.redirect_chain == [("/staff/rebuilds/", 302)]
    assert "Verifying cart_view: its progress is below." in response.content.decode()
    verified()  # in a thread of this process (no broker): the request did not wait for it

    page = staff_client.get("/staff/rebuilds/")

    assert page.status_code == 200
    assert b"cart_view" in page.content and b"verified" in page.content
    partial = staff_client.get("/staff/rebuilds/", headers={"HX-Request": "true"})
    assert b'<table class="stack">' in partial.content and b"<html" not in partial.content


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[threading.Thread]]:
    """The threads the staff page's buttons start (no broker), joined before the test's database goes."""
    threads: list[threading.Thread] = []
    real = tasks.start

    def start(name: str, verify: bool = False) -> threading.Thread | None:
        thread = real(name, verify)
        if thread is not None:
            threads.append(thread)
        return thread

    monkeypatch.setattr(tasks, "start", start)
    yield threads
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive(), "the rebuild thread did not end"


def verified(name: str = "cart_view") -> None:
    deadline = time.monotonic() + WAIT
    while RebuildRun.objects.filter(projection=name, status="verified").count() == 0:
        run = RebuildRun.objects.filter(projection=name).first()
        assert run is None or run.status not in ("failed", "swapped"), run and run.error
        assert time.monotonic() < deadline, f"no verified run of {name}: {run and run.status}"
        time.sleep(0.05)


@pytest.mark.postgres
def test_the_staff_pages_button_answers_while_the_rebuild_still_works(
    seeded_catalog: None, staff_client: Client, started: list[threading.Thread]
) -> None:
    """Without a broker the rebuild ran inside the request (eager Celery): the page answered only
    once it ended. Here the verify's compare waits for appends held in another session, and the
    button's answer comes meanwhile."""
    shop(5)
    other = psycopg.connect(**connection_kwargs("cartlog-test-holds-appends"))
    answered: list[int] = []
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [SLOW_LOCK])  # as a rebuild's swap elsewhere holds appends

        def click() -> None:  # in a thread: on the old code the answer never came while appends were held
            try:
                answered.append(staff_client.post("/staff/rebuilds/cart_view/start/", {"verify": "1"}).status_code)
            finally:
                connection.close()  # this thread's own

        request = threading.Thread(target=click)
        request.start()
        request.join(WAIT)

        assert answered == [302], "the button waited for the rebuild"
        deadline = time.monotonic() + WAIT
        while not RebuildRun.objects.filter(projection="cart_view", status="building").exists():
            assert time.monotonic() < deadline, "the rebuild never started"
            time.sleep(0.05)
        page = staff_client.get("/staff/rebuilds/").content.decode()
        assert "<strong>building</strong>" in page and "not running" not in page
    finally:
        other.close()  # appends go on; the compare takes its lock and ends
    verified()


@pytest.mark.postgres
@pytest.mark.slow
def test_a_rebuild_the_staff_page_started_resumes_by_itself_after_a_database_outage(
    seeded_catalog: None, staff_client: Client, started: list[threading.Thread]
) -> None:
    """The thread is the only one who could click again: an outage ended it with the run left
    `building · not running` until someone did. The verify waits at its compare for appends held in
    another session; the outage cuts both, and the run goes on once the database is back."""
    shop(5)
    other = psycopg.connect(**connection_kwargs("cartlog-test-holds-appends"))
    other.execute("SELECT pg_advisory_lock(%s)", [SLOW_LOCK])
    try:
        assert staff_client.post("/staff/rebuilds/cart_view/start/", {"verify": "1"}).status_code == 302
        deadline = time.monotonic() + WAIT
        while not RebuildRun.objects.filter(projection="cart_view", status="building").exists():
            assert time.monotonic() < deadline, "the rebuild never started"
            time.sleep(0.05)

        outage(2.0)  # every session but this test's is cut: the rebuild's, its lease's, the holder's
    finally:
        other.close()

    deadline = time.monotonic() + WAIT
    while not RebuildRun.objects.filter(projection="cart_view", status="verified").exists():
        assert started[0].is_alive(), "the rebuild thread gave up"
        assert time.monotonic() < deadline, f"no verified run: {RebuildRun.objects.get(projection='cart_view')}"
        time.sleep(0.1)
    assert RebuildRun.objects.filter(projection="cart_view").count() == 1, "the same run, resumed"


def test_the_staff_page_is_for_staff_only(db: None) -> None:
    assert Client().get("/staff/rebuilds/").status_code == 302
    client = Client()
    client.force_login(User.objects.create_user("shopper", password="x" * 12))
    assert client.get("/staff/rebuilds/").status_code == 403
    assert client.post("/staff/rebuilds/cart_view/start/").status_code == 403


def test_get_api_projections_shows_the_claims_rebuild_on_the_claim_validators_row(
    seeded_catalog: None, staff_client: Client
) -> None:
    """`claims` is the claim validator's state and has no row of its own: its rebuilds showed nowhere."""
    tasks.rebuild_projection.apply(args=["claims"], kwargs={"verify": True}).get()

    rows = staff_client.get("/api/projections").json()

    validator = next(row for row in rows if row["name"] == "claim_validator")
    assert validator["rebuild"]["rebuild"]["status"] == "verified"
    assert validator["rebuild"]["code_version"] == 1
    assert "claims" not in {row["name"] for row in rows}


def test_get_api_projections_carries_the_rebuild_state(seeded_catalog: None, staff_client: Client) -> None:
    shop(5)
    tasks.rebuild_projection.apply(args=["cart_view"]).get()

    response = staff_client.get("/api/projections")

    assert response.status_code == 200
    cart_view = next(row for row in response.json() if row["name"] == "cart_view")
    assert cart_view["rebuild"]["rebuild"]["status"] == "swapped"
    assert cart_view["rebuild"]["live_version"] == cart_view["rebuild"]["code_version"]
