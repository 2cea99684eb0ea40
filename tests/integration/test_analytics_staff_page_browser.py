"""The staff analytics page in Chromium at a desktop width: every figure readable whole, each says what it counts.

Figures of the size a simulated month gives (300 carts: BOK-001 bought 70 times, revenue EUR 16,642.75) were
clipped at 1200 px: the top-products tables scrolled inside their third of the page, so "70" read "7", and the
revenue ran out of its card.
"""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import Page, expect

from analytics.models import FunnelDay, ProductStats, Summary
from carts import events as e
from carts.streams import stream_id
from eventlog import codec
from eventlog.records import RecordedEvent
from projections import abandoned_carts
from tests.e2e.browser.chromium import chromium

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Elements wider inside than their box that can be scrolled (so part of a figure is out of sight), or whose text
# runs out of them (a nowrap h2 wider than its card).
CUT = """() => [...document.querySelectorAll('main *')]
    .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth)
    .map(e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`
              + ` ${e.scrollWidth} > ${e.clientWidth}`)"""


@pytest.fixture
def shop(live_server: Any, seeded_catalog: None, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API keeps a loop on this thread
    get_user_model().objects.create_user(username="analyst", password="a-long-secret-9", is_staff=True)
    return str(live_server.url)


def log_in(page: Page, shop: str) -> None:
    page.goto(shop + "/login/?next=/staff/analytics/")
    page.get_by_label("Username").fill("analyst")
    page.get_by_label("Password").fill("a-long-secret-9")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Analytics", exact=True)).to_be_visible()


def simulated_month() -> None:
    """The rows one run over `simulate_shoppers --carts 300 --seed 1` loaded (checked by SQL over the log)."""
    run = {"computed_at": timezone.now(), "covers_position": 1206}
    Summary.objects.create(carts_started=300, carts_with_items=258, carts_checked_out=110,
                           conversion_rate=110 / 300, abandonment_rate=148 / 258, revenue=Decimal("16642.75"),
                           average_order_value=Decimal("151.30"), **run)  # fmt: skip
    ProductStats.objects.create(sku="BOK-001", name="Designing Data-Intensive Applications", category="Books",
                                adds=76, purchased_quantity=70, orders=39, added_then_removed=7, **run)  # fmt: skip
    ProductStats.objects.create(sku="KIT-009", name="Cast Iron Skillet 26cm", category="Kitchen", adds=41,
                                purchased_quantity=27, orders=20, added_then_removed=1, **run)  # fmt: skip


def test_no_figure_is_cut_at_a_desktop_width(shop: str) -> None:
    simulated_month()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        log_in(page, shop)
        assert page.evaluate(CUT) == []
        expect(page.locator("#summary-revenue")).to_have_text("€16,642.75")


# The summary's cards row by row (by their top edge): how many each row holds, and each card's width.
SUMMARY_ROWS = """() => {
    const rows = new Map();
    for (const card of document.querySelectorAll('#summary > article')) {
        const box = card.getBoundingClientRect();
        const top = Math.round(box.top + window.scrollY);
        rows.set(top, [...(rows.get(top) || []), Math.round(box.width)]);
    }
    return [...rows.keys()].sort((a, b) => a - b).map(top => rows.get(top));
}"""


def test_the_summary_cards_fill_even_rows_and_nothing_is_cut_between_tablet_and_desktop_widths(shop: str) -> None:
    """From 768 to 1023 px (Pico's container is 700 px wide throughout) seven cards in rows of three left the average
    order alone on a third row, and the top products three abreast scrolled their figures out of sight ("70" read
    "7"), as did the category activity's and the recommendations' tables. Now the funnel's three counts, then the
    two rates, then the money's two, each row filled, and nothing on the page scrolls."""
    simulated_month()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1023, "height": 860})
        log_in(page, shop)
        for width in (768, 900, 1023):
            page.set_viewport_size({"width": width, "height": 860})
            rows = page.evaluate(SUMMARY_ROWS)
            assert [len(row) for row in rows] == [3, 2, 2], (width, rows)
            assert [len(set(row)) for row in rows] == [1, 1, 1], (width, rows)  # a row's cards share it evenly
            assert page.evaluate(CUT) == [], width
        expect(page.locator("#summary-revenue")).to_have_text("€16,642.75")


# Figures (h2) whose text takes more than one line: "€16,274.50" broke after its point in the abandoned carts' card.
BROKEN = """() => [...document.querySelectorAll('main h2')].filter(h => {
    const range = document.createRange();
    range.selectNodeContents(h);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
}).map(h => h.textContent)"""


def test_no_figure_breaks_across_lines(shop: str, settings: Any) -> None:
    """The abandoned carts of 300 simulated carts are worth EUR 16,274.50: here one cart, abandoned by a later one."""
    settings.ABANDONED_CART_AFTER_SECONDS = 30 * 60
    settings.ABANDONED_CART_LATENESS_SECONDS = 5 * 60
    simulated_month()
    t0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    log = [
        (1, 1, e.CartStarted(owner="user:1"), t0),
        (1, 2, e.ItemAdded(sku="TEA-001", quantity=1, unit_price=Decimal("16274.50")), t0),
        (2, 1, e.CartStarted(owner="user:2"), t0 + timedelta(hours=2)),
    ]
    records = []
    for position, (cart, version, event, at) in enumerate(log, start=1):
        type_, schema_version, data = codec.encode(event)
        records.append(
            RecordedEvent(position=position, event_id=uuid4(), version=version,
                          stream_id=stream_id(f"00000000-0000-4000-8000-00000000000{cart}"), type=type_,
                          schema_version=schema_version, data=data, metadata={}, occurred_at=at, recorded_at=at)
        )  # fmt: skip
    with transaction.atomic():
        abandoned_carts.apply(records)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        log_in(page, shop)
        expect(page.locator("#abandoned-value")).to_have_text("€16,274.50")
        assert page.evaluate(BROKEN) == []


def test_top_products_say_what_they_count(shop: str) -> None:
    simulated_month()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        log_in(page, shop)
        purchased = page.locator("#top-purchases")
        expect(purchased.locator("thead th")).to_have_text(["Product", "Units bought"])
        expect(purchased.locator("tbody tr").first.locator("td")).to_have_text(
            ["Designing Data-Intensive Applications BOK-001", "70"]
        )
        expect(page.locator("#top-adds thead th")).to_have_text(["Product", "Times added"])
        expect(page.locator("#top-removed thead th")).to_have_text(["Product", "Carts"])
        expect(page.locator("#top-removed tbody tr").first.locator("td")).to_have_text(
            ["Designing Data-Intensive Applications BOK-001", "7"]
        )


def test_before_any_run_the_page_shows_no_figures_only_that_nothing_ran(shop: str) -> None:
    """Zeros before the first run read as a shop that sold nothing, and five empty chart axes as five flat lines."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, shop)
        expect(page.locator("#no-run")).to_have_text(
            "The Spark jobs have not run yet: python manage.py run_spark_jobs."
        )
        expect(page.locator("#summary")).to_have_count(0)
        expect(page.locator("canvas")).to_have_count(0)
        expect(page.locator(".no-data")).to_have_text(["No data yet."] * 5)
        assert errors == []


def test_a_chart_without_rows_says_so_beside_those_drawn(shop: str) -> None:
    """A run over carts that never checked out: a funnel, but no revenue day."""
    run = {"computed_at": timezone.now(), "covers_position": 9}
    Summary.objects.create(carts_started=2, carts_with_items=1, carts_checked_out=0, conversion_rate=0.0,
                           abandonment_rate=1.0, revenue=Decimal("0.00"), average_order_value=Decimal("0.00"),
                           **run)  # fmt: skip
    FunnelDay.objects.create(day=date(2026, 1, 1), carts_started=2, carts_with_items=1, carts_checked_out=0,
                             conversion_rate=0.0, abandonment_rate=1.0, **run)  # fmt: skip
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, shop)
        expect(page.locator("#chart-funnel")).to_have_count(1)
        expect(page.locator("#chart-revenue")).to_have_count(0)
        expect(page.locator(".no-data")).to_have_text(["No data yet."] * 4)
        assert errors == []


def test_conversion_is_shown_to_a_tenth_of_a_percent(shop: str) -> None:
    """110 of 300 carts checked out is 36.7 %; the page rounded it to 37 %, which SQL over the log never gives."""
    simulated_month()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        log_in(page, shop)
        expect(page.locator("#summary-conversion")).to_have_text("36.7\u2009%")
        expect(page.locator("#summary article small").nth(3)).to_have_text("Conversion (checked out ÷ started)")


def test_abandonment_is_shown_with_what_it_divides(shop: str) -> None:
    """148 of the 258 carts with items did not check out: 57.4 %. The page showed conversion only."""
    simulated_month()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        log_in(page, shop)
        expect(page.locator("#summary-abandonment")).to_have_text("57.4\u2009%")
        expect(page.locator("#summary article small").nth(4)).to_have_text(
            "Abandonment (with items, not checked out ÷ with items)"
        )
        assert page.evaluate(CUT) == []


# What Chart.js drew on the funnel's canvas: each line's label, values and axis, and the right axis' range.
FUNNEL_DRAWN = """() => {
    const chart = Chart.getChart('chart-funnel');
    return {lines: chart.data.datasets.map((d, i) => [d.label, d.data, d.yAxisID, chart.isDatasetVisible(i)]),
            right: chart.scales.conversion && [chart.scales.conversion.position, chart.scales.conversion.min,
                                               chart.scales.conversion.max]};
}"""


def test_the_funnel_chart_draws_each_days_conversion(shop: str) -> None:
    """The page sent each day's conversion to the chart, which drew only the three counts."""
    run = {"computed_at": timezone.now(), "covers_position": 30}
    Summary.objects.create(carts_started=7, carts_with_items=5, carts_checked_out=3, conversion_rate=3 / 7,
                           abandonment_rate=2 / 5, revenue=Decimal("30.00"), average_order_value=Decimal("10.00"),
                           **run)  # fmt: skip
    FunnelDay.objects.create(day=date(2026, 1, 1), carts_started=4, carts_with_items=3, carts_checked_out=1,
                             conversion_rate=1 / 4, abandonment_rate=2 / 3, **run)  # fmt: skip
    FunnelDay.objects.create(day=date(2026, 1, 2), carts_started=3, carts_with_items=2, carts_checked_out=2,
                             conversion_rate=2 / 3, abandonment_rate=0.0, **run)  # fmt: skip
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, shop)
        page.wait_for_function("() => window.Chart && Chart.getChart('chart-funnel')")
        assert page.evaluate(FUNNEL_DRAWN) == {
            "lines": [
                ["started", [4, 3], "y", True],
                ["with items", [3, 2], "y", True],
                ["checked out", [1, 2], "y", True],
                ["conversion (%)", [25.0, 66.7], "conversion", True],
            ],
            "right": ["right", 0, 100],
        }
        assert errors == []
