"""The staff analytics page says how fresh its figures are: the events appended since the run, and a run in progress.

It said which log position the figures cover, but not where the log is: an analyst could not tell figures of a
minute ago from figures missing a day of orders. And a run in progress showed nothing. GET /api/analytics/summary
said neither (`log_head`, `run_in_progress`), so a report built on it could not tell either.
"""

from decimal import Decimal

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from analytics import run_lock
from analytics.models import Summary
from consumers.lease import lock_key
from eventlog import store
from eventlog.sessions import connection_kwargs

pytestmark = pytest.mark.django_db(transaction=True)


def staff_page(client: Client) -> str:
    client.force_login(get_user_model().objects.create_user(username="analyst", is_staff=True))
    return client.get("/staff/analytics/").content.decode()


def summary(covers_position: int) -> None:
    Summary.objects.create(carts_started=3, carts_with_items=2, carts_checked_out=1, conversion_rate=1 / 3,
                           abandonment_rate=0.5, revenue=Decimal("42.00"), average_order_value=Decimal("42.00"),
                           computed_at=timezone.now(), covers_position=covers_position)  # fmt: skip


def test_the_page_counts_the_events_appended_since_the_run(client: Client, seeded_catalog: None) -> None:
    head = store.head_position()
    summary(covers_position=head - 5)
    page = staff_page(client)
    assert f"The log is at position {head}: " in page
    assert '<strong id="events-behind">5</strong> events appended since are not in these figures yet.' in page


def test_figures_through_the_head_say_so(client: Client, seeded_catalog: None) -> None:
    summary(covers_position=store.head_position())
    page = staff_page(client)
    assert "These figures include every event in the log." in page
    assert 'id="events-behind"' not in page


def test_a_run_in_progress_is_shown_while_it_holds_the_lock_and_not_after(client: Client) -> None:
    summary(covers_position=0)
    with run_lock.exclusive_run():
        page = staff_page(client)
        assert run_lock.in_progress()
    assert "A run is in progress: the figures below are the last finished run's until it loads its own" in page
    assert "A run is in progress" not in client.get("/staff/analytics/").content.decode()
    assert not run_lock.in_progress()


def test_each_chart_says_which_day_it_counts_by_and_in_which_time_zone(client: Client) -> None:
    """'Funnel per day' and 'Revenue per day' did not say that one counts a cart on the day it started and the
    other an order on its checkout day, nor that days and hours are UTC: a cart started late on Monday and
    checked out on Tuesday is in Monday's funnel and Tuesday's revenue."""
    summary(covers_position=0)
    page = staff_page(client)
    for title in (
        "Funnel by the day each cart started (UTC)",
        "Revenue and average order by checkout day (UTC, €)",
        "Time from first add to checkout",
        "Shopping sessions by the day they started (UTC)",
        "Cart events and checkouts per hour (UTC)",
    ):
        assert f"<h3>{title}</h3>" in page, title


def summary_api() -> dict[str, object]:
    """GET /api/analytics/summary as a shopper sees it (any logged-in user may read it)."""
    api = APIClient()
    api.force_authenticate(get_user_model().objects.get_or_create(username="shopper")[0])
    body: dict[str, object] = api.get("/api/analytics/summary").json()
    return body


def test_the_summary_api_says_where_the_log_is(seeded_catalog: None) -> None:
    covers = store.head_position() - 5
    summary(covers_position=covers)
    body = summary_api()
    assert (body["covers_position"], body["log_head"]) == (covers, covers + 5)
    assert body["run_in_progress"] is False


def test_the_summary_api_says_when_a_run_is_in_progress() -> None:
    summary(covers_position=0)
    with run_lock.exclusive_run():
        during = summary_api()
    assert (during["run_in_progress"], summary_api()["run_in_progress"]) == (True, False)


def test_the_page_shows_abandonment_with_what_it_divides(client: Client) -> None:
    summary(covers_position=0)  # 2 carts with items, 1 checked out: half abandoned
    page = staff_page(client)
    assert (
        '<article class="rate"><small>Abandonment (with items, not checked out ÷ with items)</small>'
        '<h2 id="summary-abandonment">50.0&thinsp;%</h2></article>'
    ) in page


@pytest.mark.postgres
def test_a_run_in_another_database_of_the_server_is_not_a_run_of_this_shop() -> None:
    """Advisory locks belong to a database, but pg_locks lists every database's: a run of another shop on the same
    server (staging beside production; another test database) showed 'A run is in progress' here, and made
    test_a_run_in_progress_is_shown_while_it_holds_the_lock_and_not_after fail now and then on a shared server."""
    other = connection_kwargs("another shop's analytics run") | {"dbname": "postgres"}
    with psycopg.connect(**other) as elsewhere:
        elsewhere.execute("SELECT pg_advisory_lock(%s)", [lock_key(run_lock.NAME)])
        assert not run_lock.in_progress()
