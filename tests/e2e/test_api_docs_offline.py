"""The interactive API docs work without the internet: Swagger UI and ReDoc come from
drf-spectacular-sidecar (static files served by the project), never from a CDN, and
every operation is described with an example of its request and of each response."""

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Route, expect
from rest_framework.test import APIClient

from tests.e2e.browser.chromium import chromium

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


@pytest.mark.django_db
def test_every_operation_has_a_description_and_examples_of_its_request_and_responses() -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    missing = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            if not operation.get("description"):
                missing.append(f"{where}: description")
            for media_type, content in operation.get("requestBody", {}).get("content", {}).items():
                if not content.get("examples"):
                    missing.append(f"{where}: request example ({media_type})")
            for status, response in operation["responses"].items():
                for media_type, content in response.get("content", {}).items():
                    if not content.get("examples"):
                        missing.append(f"{where}: {status} example ({media_type})")
    assert missing == []


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_the_docs_pages_load_nothing_from_another_host(url: str) -> None:
    page = APIClient().get(url).content.decode()
    assert "/static/drf_spectacular_sidecar/" in page
    assert "cdn.jsdelivr.net" not in page and "unpkg.com" not in page and "https://" not in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("url", "rendered"),
    [("/api/docs/", ".swagger-ui .opblock-summary"), ("/api/redoc/", "[data-section-id='operation/add_to_cart']")],
    ids=["swagger-ui", "redoc"],
)
def test_the_docs_render_with_every_other_host_blocked(
    live_server: Any, monkeypatch: pytest.MonkeyPatch, url: str, rendered: str
) -> None:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    blocked: list[str] = []

    def only_the_live_server(route: Route) -> None:
        if urlsplit(route.request.url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.set_default_timeout(15_000)
        page.route("**/*", only_the_live_server)
        page.goto(live_server.url + url)
        expect(page.locator(rendered).first).to_be_visible()
        summary = page.get_by_text("Add to the cart (AddToCart); adds to an existing line")
        expect(summary.filter(visible=True).first).to_be_visible()
        assert blocked == [], "the docs asked another host for something"
