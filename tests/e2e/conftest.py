"""Fixtures of the HTTP-level tests: the REST API's schema, and the shop served live for the browser tests."""

from typing import Any

import pytest
from rest_framework.test import APIClient


@pytest.fixture(scope="module")
def schema(django_db_blocker: Any) -> dict[str, Any]:
    """The OpenAPI document the API serves, as JSON (read once per test module)."""
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return dict(response.json())


@pytest.fixture
def shop(live_server: Any, seeded_catalog: None, monkeypatch: pytest.MonkeyPatch) -> str:
    """The shop served by a live server, with the demo catalog; its address."""
    # Playwright's sync API keeps an event loop on this thread; the ORM calls made
    # here (fixtures, consumers' setup) are still plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    return str(live_server.url)
