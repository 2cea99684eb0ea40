"""A shopper's whole visit in a real browser (Debian's Chromium under Playwright),
once with JavaScript (htmx swaps) and once without (plain forms and redirects):
browse, search, add two products, change a quantity, remove one, sign up and keep
the cart, check out, see the order, and travel back in the cart's history to a
version whose state matches the API's ?at_version=.
"""

import re

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from tests.claim_helpers import claim_consumers_running
from tests.e2e.browser.chromium import Recorder, chromium

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_a_visitor_shops_signs_up_checks_out_and_travels_back_in_the_cart_history(shop: str, javascript: bool) -> None:
    with chromium() as browser, claim_consumers_running(with_projections=True):
        context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1200, "height": 900})
        page = context.new_page()
        page.set_default_timeout(10_000)
        shots = Recorder(page, "js" if javascript else "nojs")
        browse_and_fill_the_cart(page, shop, shots, javascript)
        sign_up_and_keep_the_cart(page, shots, username=f"shopper_{'js' if javascript else 'nojs'}")
        check_out(page, shots)
        travel_back_in_history(page, shop, shots, javascript)
        log_out_and_back_in(page, shop, shots, username=f"shopper_{'js' if javascript else 'nojs'}")
        assert shots.foreign_hosts(shop) == set(), "a page loaded something from another host"
        context.close()


def browse_and_fill_the_cart(page: Page, shop: str, shots: Recorder, javascript: bool) -> None:
    page.goto(shop + "/")
    expect(page).to_have_title("Catalog · cartlog shop")
    shots.shot("catalog")
    page.get_by_label("Search by name").first.fill("dripper")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("link", name="Pour-Over Dripper")).to_be_visible()
    expect(page.get_by_role("link", name="French Press 800ml")).to_have_count(0)
    shots.shot("search")
    add_product(page, "Pour-Over Dripper", 1, shots, javascript)
    page.get_by_role("link", name="Catalog").first.click()
    page.get_by_role("link", name="Coffee & Tea").click()
    add_product(page, "Ethiopian Yirgacheffe Beans 250g", 2, shots, javascript)
    expect(page.locator("#cart-count")).to_have_text("3")
    page.get_by_role("link", name=re.compile(r"^Cart \(")).click()
    expect(page).to_have_title("Your cart · cartlog shop")
    shots.shot("cart")
    page.get_by_label("Quantity of Ethiopian Yirgacheffe Beans 250g").fill("4")
    page.locator("#line-COF-001").get_by_role("button", name="Update").click()
    expect(page.locator("#cart-count")).to_have_text("5")
    page.get_by_role("button", name="Remove Pour-Over Dripper").click()
    expect(page.locator("#cart-count")).to_have_text("4")
    expect(page.locator("#line-KIT-001")).to_have_count(0)
    shots.shot("cart-updated")


def add_product(page: Page, name: str, quantity: int, shots: Recorder, javascript: bool) -> None:
    page.get_by_role("link", name=name).click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    if javascript:
        page.evaluate("window.stillThisPage = true")
    page.get_by_label("Quantity").fill(str(quantity))
    page.get_by_role("button", name="Add to cart").click()
    expect(page.get_by_role("main").get_by_text(f"Added {quantity} x {name} to your cart.")).to_be_visible()
    if javascript:  # htmx swapped the form in place: no page load, and the header count followed
        assert page.evaluate("window.stillThisPage") is True
    shots.shot("product")


def sign_up_and_keep_the_cart(page: Page, shots: Recorder, username: str) -> None:
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("a-long-secret-9")
    shots.shot("signup")
    # The shop answers once the claim validator and the account creator (threads here) have made the account,
    # or after CLAIM_WAIT_SECONDS (10 s in tests/settings.py) with "pending", and hashes the password first:
    # wait for that answer, not the page's 10 s (on a busy machine the click timed out at 10 s).
    page.get_by_role("button", name="Sign up").click(timeout=(settings.CLAIM_WAIT_SECONDS + 20) * 1000)
    expect(page.get_by_text("Your cart came with you.")).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("4")
    page.get_by_role("link", name=re.compile(r"^Cart \(")).click()
    expect(page.get_by_label("Quantity of Ethiopian Yirgacheffe Beans 250g")).to_have_value("4")


def check_out(page: Page, shots: Recorder) -> None:
    page.get_by_role("button", name="Checkout").click()
    page.get_by_label("Coupon code (optional)").fill("WELCOME10")
    shots.shot("checkout")
    page.get_by_role("button", name="Place order").click()
    expect(page).to_have_title("Order confirmed · cartlog shop")
    order_id = page.locator("#order-id").inner_text()
    expect(page.get_by_text("€45.00")).to_be_visible()  # 4 x 12.50 less 10%
    shots.shot("confirmation")
    page.get_by_role("link", name="My orders").first.click()
    expect(page.get_by_role("link", name=order_id)).to_be_visible()
    expect(page.locator("#cart-count")).to_have_text("0")
    shots.shot("my-orders")


def travel_back_in_history(page: Page, shop: str, shots: Recorder, javascript: bool) -> None:
    page.get_by_role("link", name="Cart history").first.click()
    expect(page.locator("#state-status")).to_have_text("checked_out")
    types = page.locator(".events li strong").all_inner_texts()
    assert [t.split(" · ")[1] for t in types] == [
        "CartStarted", "ItemAdded", "ItemAdded", "ItemQuantityChanged", "ItemRemoved", "CartOwnerChanged", "CheckedOut",
    ]  # fmt: skip
    shots.shot("history-latest")
    page.get_by_role("button", name="← Previous").click()
    expect(page.locator("#state-version")).to_have_text("6")
    # htmx binds the new stepper's "change" listener as it settles the swapped content: let it finish.
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")
    page.get_by_label("Version", exact=True).select_option("3")
    if not javascript:  # with JavaScript, a pick from the list (one change, no arrow key) loads it
        page.get_by_role("button", name="Show").click()
    expect(page.locator("#state-version")).to_have_text("3")
    # Without JavaScript "Show" loads a new page, parsed as it arrives: its lines come after #state-version.
    # Wait for both (KIT-001 and COF-001 at version 3, as asserted below) before reading them once.
    expect(page.locator("#state-lines tbody tr")).to_have_count(2)
    shots.shot("history-v3")
    shown = {row.get_attribute("data-sku"): int(row.locator("td").nth(2).inner_text())
             for row in page.locator("#state-lines tbody tr").all()}  # fmt: skip
    api_url = page.locator("#api-state").get_attribute("href")
    assert api_url is not None and api_url.endswith("?at_version=3")
    api = page.request.get(shop + api_url).json()  # same browser session: session auth
    assert api["version"] == 3 and api["status"] == "open"
    assert shown == {item["sku"]: item["quantity"] for item in api["items"]} == {"KIT-001": 1, "COF-001": 2}
    assert page.locator("#state-total").inner_text() == f"€{api['total']}"


def log_out_and_back_in(page: Page, shop: str, shots: Recorder, username: str) -> None:
    page.get_by_role("button", name=f"Log out {username}").click()
    expect(page.get_by_text("You are logged out.")).to_be_visible()
    page.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("a-long-secret-9")
    shots.shot("login")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text(f"Welcome back, {username}!")).to_be_visible()
    page.goto(shop + "/no-such-page/")
    expect(page).to_have_title("Page not found · cartlog shop")
    shots.shot("not-found")
