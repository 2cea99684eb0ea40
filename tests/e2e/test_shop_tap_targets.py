"""On a 390 x 844 phone, in Debian's Chromium, every link, button and field of the shop's pages
is at least 24 x 24 CSS px (WCAG 2.2, 2.5.8 Target Size (Minimum)): a product's name in the
catalog was 20 px tall, a link in small print (the cart history's API links, "the same in the
API") 15 px, a link in a line of text 19 px."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, ViewportSize, expect

from tests.claim_helpers import claim_consumers_running
from tests.e2e.browser.chromium import shopper_page

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
PHONE: ViewportSize = {"width": 390, "height": 844}
SMALLEST = 24

# Every element a finger can aim at, with its box; those the page does not show (hidden inputs,
# display:none) have an empty box and are left out.
TARGETS = """() => [...document.querySelectorAll(
        'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
    .map(e => [e, e.getBoundingClientRect()])
    .filter(([e, box]) => box.width > 0 && box.height > 0)
    .map(([e, box]) => ({what: `${e.tagName.toLowerCase()} "${(e.textContent || e.value || '').trim().slice(0, 40)}"`,
                         width: box.width, height: box.height}))"""


@pytest.fixture
def shop(shop: str) -> str:
    """The live shop (tests/e2e/conftest.py), with a customer to log in as."""
    get_user_model().objects.create_user(username="thumb", password="a-long-secret-9")
    return shop


def too_small(page: Page) -> list[str]:
    return [f"{t['what']} {t['width']:.0f}x{t['height']:.0f}" for t in page.evaluate(TARGETS)
            if t["width"] < SMALLEST or t["height"] < SMALLEST]  # fmt: skip


def test_every_tap_target_of_the_shop_is_at_least_24_px_on_a_phone(shop: str) -> None:
    small: dict[str, list[str]] = {}

    def measure(name: str) -> None:
        page.wait_for_load_state("networkidle")
        if found := too_small(page):
            small[name] = found

    with shopper_page(viewport=PHONE) as page, claim_consumers_running(with_projections=True):
        for path in ["/", "/?category=Kitchen", "/?q=dripper", "/products/KIT-001/", "/cart/", "/login/", "/signup/",
                     "/no-such-page/"]:  # fmt: skip
            page.goto(shop + path)
            measure(path)
        page.goto(shop + "/products/KIT-001/")
        page.get_by_role("button", name="Add to cart").click()
        expect(page.locator("#cart-count")).to_have_text("1")
        measure("product, added")
        page.goto(shop + "/cart/")
        measure("cart")
        page.goto(shop + "/cart/history/")
        measure("cart history")
        page.goto(shop + "/login/?next=/checkout/")
        page.get_by_label("Username").fill("thumb")
        page.get_by_label("Password").fill("a-long-secret-9")
        page.get_by_role("button", name="Log in").click()
        expect(page).to_have_title("Checkout · cartlog shop")
        measure("checkout")
        page.get_by_role("button", name="Place order").click()
        expect(page).to_have_title("Order confirmed · cartlog shop")
        measure("confirmation")
        page.get_by_role("link", name="My orders").last.click()
        for _ in range(20):  # the order_history consumer may be a few seconds behind on a busy machine
            if page.get_by_role("link", name="Cart history").count():
                break
            page.wait_for_timeout(500)
            page.reload()
        expect(page.get_by_role("link", name="Cart history")).to_be_visible()
        measure("my orders")
        # Each order is a card on a phone, as the cart's lines are: its table scrolled sideways in its box, and
        # a keyboard reached "Ship to" only by tabbing on to the link after it.
        assert page.evaluate("[...document.querySelectorAll('main *')].every(e => e.scrollWidth <= e.clientWidth)")
        page.get_by_role("link", name="Cart history").click()
        page.get_by_role("button", name="Try it (appends nothing)").click()
        measure("cart history, what if")
        for path in ["/cart/", "/account/", "/account/forget/"]:
            page.goto(shop + path)
            measure(path)
    assert small == {}, f"tap targets under {SMALLEST} x {SMALLEST} CSS px"
