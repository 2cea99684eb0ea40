"""Regenerate docs/screenshots/{shop,cart-history}.png from a running shop:

    scripts/run.sh &   # then
    .venv/bin/python -m tests.e2e.browser.docs_screenshots http://127.0.0.1:8000

It shops like a visitor (two products, a quantity change, sign-up) so the
pictures show real events; it signs up a fresh user each time.

With a staff account it also makes docs/screenshots/staff-analytics.png, the
page over 300 simulated carts (docs/analytics.md), before it shops itself:

    .venv/bin/python manage.py simulate_shoppers --carts 300 --seed 1
    .venv/bin/python manage.py run_spark_jobs
    .venv/bin/python manage.py createsuperuser
    .venv/bin/python -m tests.e2e.browser.docs_screenshots http://127.0.0.1:8000 --staff NAME:PASSWORD
"""

import sys
import time
from pathlib import Path

from playwright.sync_api import Page

from .chromium import chromium

DOCS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"


def shop_a_little(page: Page, base: str) -> None:
    for sku, quantity in (("KIT-001", 1), ("COF-001", 2), ("KIT-002", 1)):
        page.goto(f"{base}/products/{sku}/")
        page.get_by_label("Quantity").fill(str(quantity))
        page.get_by_role("button", name="Add to cart").click()
        page.wait_for_selector("#add-to-cart .notice")
    page.goto(f"{base}/cart/")
    page.get_by_label("Quantity of Ethiopian Yirgacheffe Beans 250g").fill("3")
    page.locator("#line-COF-001").get_by_role("button", name="Update").click()
    page.wait_for_load_state("networkidle")
    page.goto(f"{base}/signup/")
    page.get_by_label("Username").fill(f"reader{int(time.time())}")
    page.get_by_label("Password").fill("a-long-secret-9")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_load_state("networkidle")


def staff_analytics(page: Page, base: str, staff: str) -> None:
    """The staff analytics page, whole, as the staff account `NAME:PASSWORD` sees it."""
    username, _, password = staff.partition(":")
    page.goto(f"{base}/login/?next=/staff/analytics/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector("#freshness")  # the Spark jobs have run: the figures are there
    page.wait_for_function("Chart.instances && Object.keys(Chart.instances).length === 5")
    page.wait_for_timeout(1000)  # Chart.js animates each chart in over a second
    page.screenshot(path=str(DOCS / "staff-analytics.png"), full_page=True)


def main(argv: list[str]) -> int:
    staff = argv[argv.index("--staff") + 1] if "--staff" in argv else None
    args = [arg for arg in argv[1:] if arg not in ("--staff", staff)]
    base = args[0].rstrip("/") if args else "http://127.0.0.1:8000"
    DOCS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        if staff:
            staff_analytics(browser.new_page(viewport={"width": 1200, "height": 860}), base, staff)
        page = browser.new_page(viewport={"width": 1200, "height": 860})
        shop_a_little(page, base)
        page.goto(f"{base}/?category=Kitchen")
        page.screenshot(path=str(DOCS / "shop.png"))
        page.goto(f"{base}/cart/history/")
        page.get_by_role("button", name="← Previous").click()
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(DOCS / "cart-history.png"), full_page=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
