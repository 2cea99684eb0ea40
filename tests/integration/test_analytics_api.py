"""The analytics API and also_bought over loaded read tables (no Spark): shapes, freshness, who may read."""

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from analytics import queries
from analytics.pipeline import TABLES, load

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
SUMMARY = {
    "carts_started": 4, "carts_with_items": 3, "carts_checked_out": 2, "conversion_rate": 0.5,
    "abandonment_rate": 1 / 3, "revenue": Decimal("40.00"), "average_order_value": Decimal("20.00"),
}  # fmt: skip


def rule(sku: str, rank: int, other: str, confidence: float) -> dict[str, object]:
    return {"sku": sku, "rank": rank, "recommended_sku": other, "support": 0.2, "confidence": confidence,
            "lift": 1.5, "source": "fp_growth"}  # fmt: skip


@pytest.fixture
def loaded(catalog: None) -> None:
    load(
        {
            "summary": [SUMMARY],
            "revenue_daily": [{"day": date(2026, 1, 1), "orders": 2, "revenue": Decimal("40.00"),
                               "average_order_value": Decimal("20.00")}],
            # OLD-001 is inactive in the catalog: never recommended.
            "recommendations": [rule("COF-001", 1, "OLD-001", 0.9), rule("COF-001", 2, "KIT-001", 0.5)],
        },
        covers_position=42,
        computed_at=NOW,
    )  # fmt: skip


def api_client(*, staff: bool) -> APIClient:
    api = APIClient()
    name = "staff" if staff else "shopper"
    user = User.objects.filter(username=name).first() or User.objects.create_user(name, password="x", is_staff=staff)
    api.force_authenticate(user)
    return api


def test_the_summary_has_exactly_the_design_fields(loaded: None) -> None:
    body = api_client(staff=False).get("/api/analytics/summary").json()
    # abandonment_rate: 1 of the 3 carts with items did not check out. The log holds no event here (head 0), and
    # no run holds the pipeline lock.
    assert body == {
        "carts_started": 4, "carts_with_items": 3, "carts_checked_out": 2, "conversion_rate": 0.5,
        "abandonment_rate": 0.3333333333333333, "revenue": "40.00", "average_order_value": "20.00",
        "covers_position": 42, "computed_at": "2026-03-01T12:00:00Z", "log_head": 0, "run_in_progress": False,
    }  # fmt: skip


def test_before_any_run_the_summary_is_zeros_at_position_zero(db: None) -> None:
    body = api_client(staff=False).get("/api/analytics/summary").json()
    assert (body["carts_started"], body["revenue"], body["covers_position"], body["computed_at"]) == (
        0,
        "0.00",
        0,
        None,
    )
    assert body["abandonment_rate"] == 0.0


def test_a_new_run_replaces_every_view_whole(loaded: None) -> None:
    load({"summary": [SUMMARY]}, covers_position=50, computed_at=NOW)
    assert queries.summary()["covers_position"] == 50
    assert all(model._default_manager.count() == (1 if name == "summary" else 0) for name, model in TABLES.items())


def test_detailed_views_are_for_staff_and_carry_freshness(loaded: None) -> None:
    assert api_client(staff=False).get("/api/analytics/revenue").status_code == 403
    assert APIClient().get("/api/analytics/summary").status_code == 401
    rows = api_client(staff=True).get("/api/analytics/revenue").json()
    assert rows == [{"day": "2026-01-01", "orders": 2, "revenue": "40.00", "average_order_value": "20.00",
                     "covers_position": 42, "computed_at": "2026-03-01T12:00:00Z"}]  # fmt: skip
    unknown = api_client(staff=True).get("/api/analytics/products", {"by": "price"})
    assert unknown.status_code == 400 and unknown["Content-Type"] == "application/problem+json"


def test_also_bought_reads_the_recommendation_table_skipping_inactive_products(loaded: None) -> None:
    assert queries.also_bought("COF-001") == [
        {"sku": "KIT-001", "name": "Dripper", "price": Decimal("24.00"), "support": 0.2, "confidence": 0.5,
         "lift": 1.5}
    ]  # fmt: skip
    product = APIClient().get("/api/products/COF-001").json()
    assert [item["sku"] for item in product["also_bought"]] == ["KIT-001"]
    assert queries.also_bought("KIT-001") == []


def test_the_staff_page_shows_the_figures_and_vendored_charts(loaded: None, client: Any) -> None:
    assert client.get("/staff/analytics/").status_code == 302  # to the login page
    client.force_login(User.objects.create_user("shopper", password="x"))
    assert client.get("/staff/analytics/").status_code == 403
    client.force_login(User.objects.create_user("staff", password="x", is_staff=True))
    page = client.get("/staff/analytics/").content.decode()
    assert 'id="covers-position">42<' in page and "vendor/chart.umd.min.js" in page
    assert '"revenue": [40.0]' in page  # the chart data
    # Each SKU's top rule, both products by name and SKU (a rule may name a product no longer sold).
    assert '<td data-label="X">Beans <small class="sku">COF-001</small></td>' in page
    assert '<td data-label="Y">Gone <small class="sku">OLD-001</small></td>' in page


def test_a_limit_that_is_not_a_whole_number_from_1_is_refused_not_replaced(loaded: None) -> None:
    """?limit=abc answered the default 10 rows and ?limit=0 one row, as if asked for: a typo in a report's query
    went unnoticed. Above 100 is the documented ceiling and still answers 100."""
    load({"product_activity": [
        {"sku": f"SKU-{n:03d}", "name": None, "category": None, "adds": n, "purchased_quantity": n, "orders": n,
         "added_then_removed": 0} for n in range(1, 13)
    ]}, covers_position=42, computed_at=NOW)  # fmt: skip
    staff = api_client(staff=True)
    for limit in ("abc", "0", "-1", "2.5"):
        refused = staff.get("/api/analytics/products", {"limit": limit})
        assert refused.status_code == 400, limit
        why = f"limit must be a whole number from 1 to 100, not {limit!r}."
        assert refused.json() == {"type": "/api/problems/invalid-input", "title": "Invalid input", "status": 400,
                                  "detail": "Some fields of the request are invalid; see errors.",
                                  "errors": {"limit": [why]}}  # fmt: skip
    assert [row["sku"] for row in staff.get("/api/analytics/products", {"limit": "2"}).json()] == ["SKU-012", "SKU-011"]
    assert len(staff.get("/api/analytics/products", {"limit": "1000"}).json()) == 12
    assert len(staff.get("/api/analytics/products").json()) == 10


def summary_reads(queries_run: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries_run.captured_queries if "analytics_summary" in query["sql"]]


@pytest.mark.parametrize("asked", [{}, {"min_position": "0"}], ids=["plain", "min_position"])
def test_the_summary_is_read_once_per_request(loaded: None, asked: dict[str, str]) -> None:
    """SummaryView read the Summary row for Cartlog-Position, then again for the body: two queries, and a run
    loading in between made the header and the body's covers_position disagree. One read answers both."""
    api = api_client(staff=False)
    with CaptureQueriesContext(connection) as queries_run:
        response = api.get("/api/analytics/summary", asked)
    assert response.status_code == 200
    assert len(summary_reads(queries_run)) == 1, summary_reads(queries_run)
    assert response["Cartlog-Position"] == "42" and response.json()["covers_position"] == 42
