"""Shared helpers for the HTTP-level tests of the REST API."""

from typing import Any

from django.contrib.auth import get_user_model
from knox.models import AuthToken
from rest_framework.test import APIClient

from eventlog.models import Event


def client_for(username: str) -> APIClient:
    user = get_user_model().objects.create_user(username=username, password="a-long-passphrase")
    client = APIClient()
    _, token = AuthToken.objects.create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def log_snapshot() -> list[tuple[int, str, int]]:
    return list(Event.objects.order_by("position").values_list("position", "stream_id", "version"))


def assert_problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert {"type", "title", "status", "detail"} <= set(body)
    assert body["status"] == status
    return dict(body)
