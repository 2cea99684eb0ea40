"""The Content-Security-Policy every answer carries (docs/security.md), enforced by Chromium: the
shop with htmx, the staff pages, the admin and both API docs pages work under it without one
violation, and a script injected into a page does not run."""

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from tests.e2e.browser.chromium import chromium

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-passphrase"
# ReDoc's own bundle shows a logo from its CDN; the docs pages load nothing from another host.
EXPECTED_BLOCKS = ("https://cdn.redoc.ly/",)
STAFF_PAGES = (
    "/cart/",
    "/cart/history/",
    "/checkout/",
    "/orders/",
    "/account/",
    "/staff/analytics/",
    "/staff/rebuilds/",
    "/admin/",
    "/admin/catalog/product/",
    "/admin/catalog/coupon/add/",
    "/admin/projections/orderhistory/",
)


def violations_on(page: Page) -> list[str]:
    """Every CSP violation the page reports, as Chromium writes it on the console."""
    found: list[str] = []
    page.on(
        "console",
        lambda message: (
            found.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text and not any(host in message.text for host in EXPECTED_BLOCKS)
            else None
        ),
    )
    return found


def test_the_shop_admin_and_docs_work_under_the_policy_and_an_injected_script_does_not_run(
    live_server: Any, seeded_catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    get_user_model().objects.create_user(username="staffer", password=PASSWORD, is_staff=True, is_superuser=True)
    shop = str(live_server.url)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.set_default_timeout(15_000)
        violations = violations_on(page)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))

        page.goto(shop + "/login/")
        page.get_by_label("Username").fill("staffer")
        page.get_by_label("Password").fill(PASSWORD)
        page.locator("main form button[type=submit]").click()
        expect(page.get_by_role("link", name="Account")).to_be_visible()

        # htmx (a script file) adds to the cart in place: the count changes with no page load.
        page.goto(shop + "/products/COF-001/")
        page.get_by_role("button", name="Add to cart").click()
        expect(page.locator("#cart-count")).to_have_text("1")

        for path in STAFF_PAGES:
            response = page.goto(shop + path)
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("load")
        page.goto(shop + "/api/docs/")
        expect(page.locator(".swagger-ui .opblock-summary").first).to_be_visible(timeout=30_000)  # a 130 kB schema
        page.goto(shop + "/api/redoc/")
        expect(page.locator("[data-section-id='operation/add_to_cart']").first).to_be_visible(timeout=30_000)

        # What an injection would add to a page: an inline script. The policy refuses to run it.
        page.goto(shop + "/")
        page.evaluate(
            "() => { const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
            " document.body.appendChild(s); }"
        )
        assert page.evaluate("() => window.injected") is None
        refused = [text for text in violations if "inline script" in text]
        assert len(refused) == 1, violations
        assert [text for text in violations if text not in refused] == []
        assert errors == []
