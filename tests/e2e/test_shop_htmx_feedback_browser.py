"""What an in-place (htmx) change tells a shopper who cannot see it happen, in Debian's Chromium:
a screen reader hears what happened from one polite live region that no swap replaces, the tab
is named after an error page swapped in, a slow answer shows it is on its way (and cannot be sent
twice), and a keyboard shopper's focus stays where it was.
"""

import re

import pytest
from playwright.sync_api import Route, expect

from tests.e2e.browser.chromium import shopper_page
from tests.e2e.browser.shopping import add

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEANS = "Ethiopian Yirgacheffe Beans 250g"
# Remembers the live region's element, then tells whether the page still has that very element.
KEEP_REGION = "() => { window.regionBefore = document.getElementById('live-region') }"
SAME_REGION = "() => window.regionBefore !== null && document.getElementById('live-region') === window.regionBefore"
# What a screen reader is told after a swap: the element the focus landed on reads itself, then the live region.
SAID = """() => ({focus: document.activeElement.textContent.replace(/\\s+/g, ' ').trim(),
    region: document.getElementById('live-region').textContent})"""


def test_what_an_update_did_is_said_in_a_live_region_that_outlives_every_swap(shop: str) -> None:
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        add(page, shop, "KIT-001", "Pour-Over Dripper")
        page.goto(shop + "/cart/")
        region = page.locator("#live-region")
        expect(region).to_have_attribute("aria-live", "polite")
        expect(region).to_have_text("")  # on the page, empty, before anything changes
        page.evaluate(KEEP_REGION)
        page.evaluate("window.stillThisPage = true")

        quantity = page.get_by_label(f"Quantity of {BEANS}")
        quantity.fill("3")
        page.locator("#line-COF-001").get_by_role("button", name="Update").click()
        expect(region).to_have_text(f"Quantity of {BEANS} set to 3.")
        expect(page.locator("#cart-count")).to_have_text("4")
        assert page.evaluate(SAME_REGION) is True  # the swap replaced #cart, not the region
        # The region is the one voice: the message swapped in has no live role of its own (an alert is
        # spoken as it is inserted, and then again by the region).
        expect(page.locator("#messages .notice")).not_to_have_attribute("role", re.compile("."))
        assert page.evaluate("window.stillThisPage") is True

        # A message that takes the focus is read from there, and the region leaves it out (said once:
        # test_a_removed_line_is_said_once_by_the_message_that_takes_the_focus).
        page.get_by_role("button", name="Remove Pour-Over Dripper").click()
        expect(page.locator("#messages .notice")).to_be_focused()
        expect(page.locator("#messages .notice")).to_have_text("Removed Pour-Over Dripper from your cart.")
        page.wait_for_timeout(500)  # the region is filled 100 ms after a swap
        expect(region).to_have_text("")

        # A refusal is said too, once: the cart changed in another tab meanwhile.
        other = page.context.new_page()
        other.goto(shop + "/cart/")
        other.get_by_label(f"Quantity of {BEANS}").fill("5")
        other.get_by_label(f"Quantity of {BEANS}").press("Enter")
        expect(other.locator("#cart-count")).to_have_text("5")
        quantity.fill("2")
        quantity.press("Enter")
        warning = page.locator("#messages .notice-warning")
        expect(warning).to_have_text(re.compile(r"^Your cart changed in another tab or window"))
        expect(warning).to_be_focused()
        page.wait_for_timeout(500)  # the region is filled 100 ms after a swap
        expect(region).to_have_text("")
        expect(page.get_by_role("alert")).to_have_count(0)
        assert page.evaluate(SAME_REGION) is True


def test_update_pressed_with_the_keyboard_keeps_the_focus_on_its_line(shop: str) -> None:
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        page.goto(shop + "/cart/")
        page.get_by_label(f"Quantity of {BEANS}").fill("3")
        page.locator("#line-COF-001").get_by_role("button", name="Update").focus()
        page.keyboard.press("Space")
        expect(page.locator("#live-region")).to_have_text(f"Quantity of {BEANS} set to 3.")
        # The button was swapped away; the focus fell to <body>, the top of the page.
        expect(page.get_by_label(f"Quantity of {BEANS}")).to_be_focused()
        expect(page.get_by_label(f"Quantity of {BEANS}")).to_have_value("3")


def test_an_error_page_swapped_in_names_the_tab_keeps_the_skip_links_target_and_is_said(
    shop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a fault on the server's side")  # any failure: the shop answers its 500 page

    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        page.goto(shop + "/cart/")
        expect(page).to_have_title("Your cart · cartlog shop")
        page.evaluate(KEEP_REGION)
        monkeypatch.setattr("carts.services.update_quantity", fails)
        page.get_by_label(f"Quantity of {BEANS}").fill("3")
        page.get_by_label(f"Quantity of {BEANS}").press("Enter")
        expect(page.get_by_role("heading", name="Something went wrong")).to_be_visible()
        expect(page).to_have_title("Something went wrong · cartlog shop")
        assert page.evaluate(SAME_REGION) is True
        expect(page.locator("main#main")).to_have_count(1)  # "Skip to content" still leads somewhere
        # The form (and the focus in it) is gone: the keyboard goes on from the error's heading, not <body>,
        # and a screen reader reads it from there (the region leaves it out, or it was said twice).
        expect(page.get_by_role("heading", name="Something went wrong")).to_be_focused()
        page.wait_for_timeout(500)  # the region is filled 100 ms after a swap
        assert page.evaluate(SAID) == {"focus": "Something went wrong", "region": ""}
        page.keyboard.press("Tab")
        expect(page.get_by_role("button", name="Back to the catalog")).to_be_focused()

        # An expired session's refusal (403), from a page that has not failed before.
        page.goto(shop + "/products/KIT-001/")
        page.context.clear_cookies()
        page.get_by_role("button", name="Add to cart").click()
        expect(page).to_have_title("Please try again · cartlog shop")
        expect(page.get_by_role("heading", name="Please try again")).to_be_focused()
        page.wait_for_timeout(500)
        assert page.evaluate(SAID) == {"focus": "Please try again", "region": ""}


def test_a_slow_update_shows_it_is_on_its_way_and_is_sent_once(shop: str) -> None:
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        page.goto(shop + "/cart/")
        held: list[Route] = []
        page.route("**/cart/lines/COF-001/update/", lambda route: held.append(route))  # answered when the test says
        quantity = page.get_by_label(f"Quantity of {BEANS}")
        update = page.locator("#line-COF-001").get_by_role("button", name="Update")
        indicator = page.locator("#line-COF-001 .busy-indicator").first
        expect(indicator).to_be_hidden()
        heading_at = page.locator("#cart-title").bounding_box()
        quantity.fill("3")
        update.click()

        expect(indicator).to_be_visible()
        expect(indicator).to_have_text("Updating…")
        expect(page.locator("#cart")).to_have_attribute("aria-busy", "true")
        expect(update).to_be_disabled()
        # Nothing moves while it waits (Pico draws a spinner before an aria-busy element, a line above the heading).
        assert page.locator("#cart-title").bounding_box() == heading_at
        quantity.press("Enter")  # impatient: a second submit while the first is on its way
        page.wait_for_timeout(300)
        assert len(held) == 1

        held[0].continue_()
        expect(page.locator("#live-region")).to_have_text(f"Quantity of {BEANS} set to 3.")
        expect(page.locator("#cart")).not_to_have_attribute("aria-busy", "true")
        expect(page.locator(".busy-indicator:visible")).to_have_count(0)
        expect(page.locator("#line-COF-001").get_by_role("button", name="Update")).to_be_enabled()
        page.wait_for_timeout(500)
        assert len(held) == 1, "a second update was sent (with the version the first made stale)"
        expect(page.locator("#messages")).not_to_contain_text("changed in another tab")


def test_a_request_that_gets_no_answer_says_so_on_the_page_and_aloud(shop: str) -> None:
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        page.goto(shop + "/cart/")
        page.route("**/cart/lines/COF-001/update/", lambda route: route.abort("internetdisconnected"))
        page.get_by_label(f"Quantity of {BEANS}").fill("3")
        page.get_by_label(f"Quantity of {BEANS}").press("Enter")
        said = "The shop could not be reached, so nothing changed. Check your connection and try again."
        expect(page.locator("#cart .notice-error")).to_have_text(said)  # before, nothing happened at all
        expect(page.locator("#live-region")).to_have_text(said)
        expect(page.locator("#cart")).not_to_have_attribute("aria-busy", "true")
        expect(page.locator("#line-COF-001").get_by_role("button", name="Update")).to_be_enabled()


def test_stepping_through_the_history_with_the_keyboard_keeps_the_focus_on_the_step(shop: str) -> None:
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        add(page, shop, "KIT-001", "Pour-Over Dripper")
        page.goto(shop + "/cart/history/")
        expect(page.locator("#state-version")).to_have_text("3")
        page.get_by_role("button", name="← Previous").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#state-version")).to_have_text("2")
        expect(page.locator("#live-region")).to_have_text("State at version 2 of 3")
        expect(page.get_by_role("button", name="← Previous")).to_be_focused()  # it fell to <body>
        page.keyboard.press("Enter")
        expect(page.locator("#state-version")).to_have_text("1")


def test_a_removed_line_is_said_once_by_the_message_that_takes_the_focus(shop: str) -> None:
    """The Remove button goes with its line, so the message takes the focus and a screen reader reads it
    from there; the live region said it as well, so it was heard twice."""
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        add(page, shop, "KIT-001", "Pour-Over Dripper")
        page.goto(shop + "/cart/")
        quantity = page.get_by_label(f"Quantity of {BEANS}")
        quantity.fill("3")
        quantity.press("Enter")  # the focus stays in the field, so the region is what says it
        expect(page.locator("#live-region")).to_have_text(f"Quantity of {BEANS} set to 3.")

        page.get_by_role("button", name="Remove Pour-Over Dripper").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#line-KIT-001")).to_have_count(0)
        expect(page.locator("#messages .notice")).to_be_focused()
        page.wait_for_timeout(500)  # the region is filled 100 ms after a swap
        assert page.evaluate(SAID) == {"focus": "Removed Pour-Over Dripper from your cart.", "region": ""}


def test_a_wrong_quantity_is_said_once_by_the_field_that_takes_the_focus(shop: str) -> None:
    """A refused quantity puts the focus in its field, whose description (aria-describedby) is the
    error: a screen reader says it as the focus lands, so the live region leaves it out."""
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        page.goto(shop + "/cart/")
        quantity = page.get_by_label(f"Quantity of {BEANS}")
        quantity.evaluate("field => field.removeAttribute('max')")  # the shop's own check, not the browser's
        quantity.fill("100")
        quantity.press("Enter")
        refused = page.get_by_label(f"Quantity of {BEANS}")
        expect(refused).to_have_attribute("aria-invalid", "true")
        expect(refused).to_be_focused()
        expect(refused).to_have_accessible_description("Quantity must be between 0 and 99.")
        page.wait_for_timeout(500)  # the region is filled 100 ms after a swap
        expect(page.locator("#live-region")).to_have_text("")


def test_arrow_keys_on_the_version_select_step_without_loading_and_enter_loads(shop: str) -> None:
    """A closed select changes its value (and fires change) on every arrow key: loading on change made a
    keyboard shopper wait for a page per version stepped past. A pick with the pointer still loads at once."""
    with shopper_page() as page:
        add(page, shop, "COF-001", BEANS)
        add(page, shop, "KIT-001", "Pour-Over Dripper")
        page.goto(shop + "/cart/history/")
        expect(page.locator("#state-version")).to_have_text("3")
        loads: list[str] = []
        page.on("request", lambda request: loads.append(request.url) if "/history/" in request.url else None)

        version = page.get_by_label("Version", exact=True)
        version.focus()
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowUp")
        expect(version).to_have_value("1")
        page.wait_for_timeout(500)
        assert loads == []
        expect(page.locator("#state-version")).to_have_text("3")

        page.keyboard.press("Enter")
        expect(page.locator("#state-version")).to_have_text("1")
        expect(page.locator("#live-region")).to_have_text("State at version 1 of 3")
        expect(page.get_by_label("Version", exact=True)).to_be_focused()
        assert len(loads) == 1 and loads[0].endswith("/history/?version=1")

        page.get_by_label("Version", exact=True).select_option("2")  # as a pick from the list: one change, no key
        expect(page.locator("#state-version")).to_have_text("2")
        assert len(loads) == 2 and loads[1].endswith("/history/?version=2")
