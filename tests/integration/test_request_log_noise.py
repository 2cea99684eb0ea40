"""Django's request log as the configured console handler passes it on (ops/logs.py: RequestNoise):
records made by real requests. The filter changes the record itself, so every handler after the
console's (here pytest's own) sees the lowered level and the dropped traceback."""

import logging
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from ops.logs import RequestNoise
from tests.e2e.api_helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def console_has_the_filter() -> None:
    [console] = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]  # settings.LOGGING's
    assert any(isinstance(f, RequestNoise) for f in console.filters)


def request_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "django.request"]


def test_a_view_not_caught_up_is_a_warning_not_an_error(caplog: pytest.LogCaptureFixture, settings: Any) -> None:
    settings.MIN_POSITION_WAIT_SECONDS = 0.1
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client_for("ada").get("/api/orders", {"min_position": 10**6}).status_code == 503
    [record] = request_records(caplog)
    assert (record.levelno, record.levelname) == (logging.WARNING, "WARNING")  # Django logged it at ERROR
    assert "Service Unavailable" in record.getMessage()


def test_a_staff_page_refused_to_a_shopper_keeps_its_line_without_the_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    shopper = Client()
    shopper.force_login(get_user_model().objects.create_user(username="pat", password="a-long-passphrase"))
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert shopper.get("/staff/analytics/").status_code == 403
    [record] = request_records(caplog)
    assert record.exc_info is None  # Django attached the PermissionDenied's traceback
    assert "Forbidden (Permission denied): /staff/analytics/" in record.getMessage()


def test_a_host_not_allowed_is_one_warning_line_without_the_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """Scanners send any Host: Django answered 400 and logged an ERROR with a traceback for each."""
    with caplog.at_level(logging.WARNING, logger="django.security"):
        assert Client().get("/", HTTP_HOST="scanner.example").status_code == 400
    [record] = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert (record.levelno, record.levelname, record.exc_info) == (logging.WARNING, "WARNING", None)
    assert "Invalid HTTP_HOST header: 'scanner.example'" in record.getMessage()
