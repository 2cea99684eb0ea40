"""On a 390 px phone every page a shopper or staff member uses fits the screen: no
sideways scrolling, in Debian's Chromium. The cart, the checkout and the staff pages
fit with nothing scrolling sideways at all, not even inside a box: their tables
stack each row as a card."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import Page, ViewportSize, expect

from analytics.models import ProductStats, Recommendation, Summary
from tests.e2e.browser.chromium import Recorder, chromium

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE: ViewportSize = {"width": 390, "height": 844}
PAGES = ["/", "/products/COF-001/", "/cart/", "/checkout/", "/orders/", "/staff/analytics/", "/staff/rebuilds/",
         "/admin/", "/login/", "/signup/", "/api/docs/"]  # fmt: skip


@pytest.fixture
def shop(shop: str) -> str:
    """The live shop (tests/e2e/conftest.py), with a staff account and wide analytics figures."""
    get_user_model().objects.create_superuser(username="staffer", password="a-long-secret-9")
    spark_rows()
    return shop


def spark_rows() -> None:
    """Wide figures on the analytics page: a long product name, six-digit revenue."""
    fresh = {"computed_at": timezone.now(), "covers_position": 123456}
    Summary.objects.create(carts_started=123456, carts_with_items=98765, carts_checked_out=45678, conversion_rate=0.37,
                           abandonment_rate=0.53, revenue=Decimal("1017011.30"), average_order_value=Decimal("417.11"),
                           **fresh)  # fmt: skip
    ProductStats.objects.create(sku="COF-001", name="Ethiopian Yirgacheffe Beans 250g, single origin, washed",
                                   category="Coffee & Tea", adds=123456, purchased_quantity=98765, orders=45678,
                                   added_then_removed=1234, **fresh)  # fmt: skip
    Recommendation.objects.create(sku="COF-001", rank=1, recommended_sku="KIT-001", support=0.123, confidence=0.456,
                                  lift=2.5, source="co_occurrence", **fresh)  # fmt: skip


# Pages where no element may scroll sideways either (a table in a scrolling box is not enough).
NOTHING_SCROLLS = ["/cart/", "/checkout/", "/staff/analytics/", "/staff/rebuilds/"]
# Every element wider inside than its box, unless it clips what overflows (overflow-x hidden or
# clip: the visually hidden labels) and so cannot be scrolled.
SCROLLERS = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth
                 && !['hidden', 'clip'].includes(getComputedStyle(e).overflowX))
    .map(e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`
              + ` ${e.scrollWidth} > ${e.clientWidth}`)"""


def fits(page: Page) -> tuple[int, int]:
    return page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")


def test_every_page_fits_a_390_px_screen(shop: str) -> None:
    with chromium() as browser:
        context = browser.new_context(viewport=PHONE)
        page = context.new_page()
        page.set_default_timeout(10_000)
        shots = Recorder(page, "phone")
        page.goto(shop + "/products/COF-001/")
        page.get_by_label("Quantity").fill("12")
        page.get_by_role("button", name="Add to cart").click()
        expect(page.locator("#cart-count")).to_have_text("12")
        page.goto(shop + "/products/KIT-001/")
        page.get_by_role("button", name="Add to cart").click()
        # htmx sends the add in the background: leaving the page before its answer could cancel it.
        expect(page.locator("#cart-count")).to_have_text("13")
        page.goto(shop + "/login/")
        page.get_by_label("Username").fill("staffer")
        page.get_by_label("Password").fill("a-long-secret-9")
        page.get_by_role("button", name="Log in").click()
        expect(page.locator("#cart-count")).to_have_text("13")
        too_wide: dict[str, object] = {}
        for path in PAGES:
            page.goto(shop + path)
            page.wait_for_load_state("networkidle")
            shots.shot(path.strip("/").replace("/", "-") or "catalog")
            scroll_width, inner_width = fits(page)
            if scroll_width > inner_width:
                too_wide[path] = scroll_width
            if path in NOTHING_SCROLLS and (scrollers := page.evaluate(SCROLLERS)):
                too_wide[path] = scrollers
        context.close()
    assert too_wide == {}, f"wider than {PHONE['width']} px"
