"""Fixtures of the HTTP-level tests of the REST API."""

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
