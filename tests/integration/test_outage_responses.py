"""Each hook of cartlog/outage.py, in process and on both backends: a database that refuses
every connection gives 503 with Retry-After, problem+json under /api/, the static page elsewhere.
The real outage (gunicorn, kill -9) is tests/integration/test_outage_gunicorn.py."""

import json

import pytest
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def database_down(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: BaseDatabaseWrapper) -> None:
        raise OperationalError("connection refused (test)")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/api/products", {}),  # a DRF view: DRF's exception handler
        ("/api/carts", {"Authorization": "Token 0123456789abcdef"}),  # fails in DRF's authentication
    ],
)
def test_the_api_answers_503_problem_json(database_down: None, path: str, headers: dict[str, str]) -> None:
    response = Client().get(path, headers=headers)
    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "5"
    assert json.loads(response.content)["status"] == 503


def test_the_shop_answers_the_503_page(database_down: None) -> None:
    response = Client().get("/")  # a plain view: the middleware
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert b"Back in a moment" in response.content


def test_an_outage_outside_any_view_is_a_503_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.contrib.sessions.middleware import SessionMiddleware

    def failing_save(self: SessionMiddleware, request: object, response: object) -> object:
        raise OperationalError("connection refused while saving the session (test)")

    monkeypatch.setattr(SessionMiddleware, "process_response", failing_save)
    client = Client(raise_request_exception=False)
    for path in ("/api/products", "/"):
        response = client.get(path)  # the view answered; handler500 gets the failed save
        assert response.status_code == 503, path
        assert response["Retry-After"] == "5"
