"""No shop page references anything on another host: every src, href and action
in the rendered HTML of every page is on the shop's own server, and the vendored
CSS fetches nothing either (its only url()s are inline data: images)."""

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import Client

from tests.integration.shop_helpers import add, cart_row, line_form, log_in_new_user

STATIC = Path(__file__).resolve().parents[2] / "static"
pytestmark = pytest.mark.usefixtures("catalog")


class LinkCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "action", "hx-get", "hx-post", "srcset", "poster", "data") and value:
                self.urls.append(value)


def foreign(html: str) -> list[str]:
    collector = LinkCollector()
    collector.feed(html)
    return [url for url in collector.urls if urlsplit(url).netloc not in ("", "testserver") or url.startswith("//")]


def every_page(client: Client) -> dict[str, str]:
    anonymous = ["/", "/?q=bean", "/?category=Coffee", "/products/COF-001/", "/products/OLD-001/"]
    anonymous += ["/signup/", "/login/"]
    pages = {url: client.get(url).content.decode() for url in anonymous}
    add(client, "COF-001", 2)
    pages["/cart/"] = client.get("/cart/").content.decode()
    pages["/checkout/ (anonymous)"] = client.get("/checkout/").content.decode()
    pages["404"] = client.get("/no/such/page/").content.decode()
    log_in_new_user(client)
    pages["/checkout/"] = client.get("/checkout/").content.decode()
    row = cart_row(client)
    pages[f"/carts/{row.cart_id}/history/"] = client.get(f"/carts/{row.cart_id}/history/?version=1").content.decode()
    client.post("/checkout/", line_form(row))
    pages["order"] = client.get(f"/orders/{row.cart_id}/").content.decode()
    pages["/orders/"] = client.get("/orders/").content.decode()
    return pages


def test_no_page_references_an_external_url(client: Client) -> None:
    pages = every_page(client)
    assert len(pages) == 14
    for url, html in pages.items():
        assert "<html" in html, url
        assert foreign(html) == [], url


def test_the_500_page_references_no_external_url() -> None:
    assert foreign((Path(__file__).resolve().parents[2] / "templates" / "500.html").read_text()) == []


def test_the_vendored_css_fetches_nothing_from_elsewhere() -> None:
    for css in STATIC.rglob("*.css"):
        for target in re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text()):
            assert target.startswith("data:") or not urlsplit(target).netloc, (css.name, target[:80])
        assert "@import" not in css.read_text(), css.name


def test_the_collector_sees_a_foreign_url() -> None:
    html = '<script src="https://cdn.example.com/x.js"></script><a href="/ok">ok</a><img src="//evil.example/x">'
    assert foreign(html) == ["https://cdn.example.com/x.js", "//evil.example/x"]
