"""What a shopper does in the browser tests, step by step, with the check that it happened."""

from playwright.sync_api import Page, expect


def add(page: Page, shop: str, sku: str, name: str) -> None:
    """Add one of `sku` from its product page; the shop confirms it by `name`."""
    page.goto(f"{shop}/products/{sku}/")
    page.get_by_role("button", name="Add to cart").click()
    expect(page.get_by_role("main").get_by_text(f"Added 1 x {name} to your cart.")).to_be_visible()
