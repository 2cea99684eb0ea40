"""htmx keeps no copy of the shop's pages in the browser's storage (Debian's Chromium).

Stepping through a cart's history swaps the page in place and pushes its address (hx-push-url);
htmx then saved a snapshot of the page it left, whole, in sessionStorage ('htmx-history-cache'),
and Back drew it from there: after a log-out, or Forget me, the browser showed a signed-in
shopper's pages again without asking the server. Now nothing is stored and Back asks the server.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.chromium import shopper_page

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

STORED = "() => [sessionStorage.getItem('htmx-history-cache'), localStorage.getItem('htmx-history-cache')]"


def test_stepping_through_the_history_stores_no_copy_of_a_page_and_back_asks_the_server(shop: str) -> None:
    with shopper_page() as page:
        for sku in ("COF-001", "KIT-001"):
            page.goto(f"{shop}/products/{sku}/")
            page.get_by_role("button", name="Add to cart").click()
            expect(page.get_by_role("main").get_by_text("to your cart.")).to_be_visible()
        page.goto(shop + "/cart/history/")
        expect(page.locator("#state-version")).to_have_text("3")
        page.get_by_role("button", name="← Previous").click()
        expect(page.locator("#state-version")).to_have_text("2")
        page.get_by_role("button", name="← Previous").click()
        expect(page.locator("#state-version")).to_have_text("1")
        assert "version=1" in page.url  # each step's address was pushed: Back has htmx's pages to go back to

        assert page.evaluate(STORED) == [None, None]
        with page.expect_request(lambda request: "/history/?version=2" in request.url):
            page.go_back()
        expect(page.locator("#state-version")).to_have_text("2")
