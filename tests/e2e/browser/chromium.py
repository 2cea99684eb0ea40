"""Starting Debian's Chromium under Playwright, and the artefacts a run leaves behind."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def shopper_page(*, javascript: bool = True, viewport: ViewportSize | None = None) -> Iterator[Page]:
    """A page in a fresh browser context of Debian's Chromium (closed at the end)."""
    with chromium() as browser:
        context = browser.new_context(java_script_enabled=javascript, viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(10_000)
        try:
            yield page
        finally:
            context.close()


class Recorder:
    """Screenshots of each page, and every URL the pages asked the network for."""

    def __init__(self, page: Page, prefix: str) -> None:
        self.page = page
        self.prefix = prefix
        self.count = 0
        self.requested: list[str] = []
        page.on("request", lambda request: self.requested.append(request.url))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def shot(self, name: str) -> Path:
        self.count += 1
        path = SCREENSHOTS / f"{self.prefix}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def foreign_hosts(self, own_url: str) -> set[str]:
        own = urlsplit(own_url).netloc
        hosts = {urlsplit(url).netloc for url in self.requested if urlsplit(url).scheme in ("http", "https")}
        return hosts - {own}
