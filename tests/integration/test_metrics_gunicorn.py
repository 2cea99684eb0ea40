"""/metrics under real gunicorn with 2 workers: the command counters of every worker are summed,
workers recycled by max_requests included, and a restarted server starts from zero."""

import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from knox.models import AuthToken
from prometheus_client.parser import text_string_to_metric_families

from tests.gunicorn_server import serving
from tests.processes import gunicorn_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

STARTED = {"command": "StartCart", "outcome": "accepted", "reason": ""}


@contextmanager
def gunicorn(metrics_dir: Path, log: Path) -> Iterator[str]:
    """gunicorn.conf.py's hooks as every run uses them; each worker is replaced after 4 requests."""
    with serving(gunicorn_env(metrics_dir, LOG_LEVEL="WARNING"), "--max-requests", "4", stdout=log) as url:
        yield url


def start_carts(url: str, token: str, count: int) -> None:
    for _ in range(count):
        request = urllib.request.Request(f"{url}/api/carts", method="POST", headers={"Authorization": f"Token {token}"})
        with urllib.request.urlopen(request, timeout=20) as response:
            assert response.status == 201


def started_carts(url: str) -> float:
    with urllib.request.urlopen(f"{url}/metrics", timeout=20) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == "cartlog_commands_total" and found.labels == STARTED:
                return float(found.value)
    return 0.0


def test_metrics_sum_the_command_counters_of_every_gunicorn_worker(tmp_path: Path) -> None:
    user = get_user_model().objects.create_user(username="metrics", password="a-long-passphrase")
    _, token = AuthToken.objects.create(user=user)
    metrics_dir, log = tmp_path / "metrics", tmp_path / "gunicorn.log"

    with gunicorn(metrics_dir, log) as url:
        start_carts(url, token, 3)
    # A new server in the same folder starts from zero, not from the 3 of the last one.
    with gunicorn(metrics_dir, log) as url:
        start_carts(url, token, 20)
        # 20 commands over 2 workers replaced every 4 requests: at least 5 processes counted some.
        assert [started_carts(url) for _ in range(6)] == [20.0] * 6
    counted_by = {path.name for path in metrics_dir.glob("counter_*.db")}
    assert len(counted_by) >= 5, counted_by


def test_gunicorns_own_limits_answer_as_docs_security_says(tmp_path: Path) -> None:
    # docs/security.md: gunicorn.conf.py's limits, refused by gunicorn before Django sees the request.
    import http.client

    def status(path: str, headers: dict[str, str]) -> int:
        connection = http.client.HTTPConnection(url.removeprefix("http://"), timeout=10)
        connection.request("GET", path, headers=headers)
        return connection.getresponse().status

    with gunicorn(tmp_path / "metrics", tmp_path / "gunicorn.log") as url:
        assert status("/?q=" + "a" * 5000, {}) == 414  # limit_request_line 4094
        assert status("/", {f"X-Field-{n}": "v" for n in range(110)}) == 431  # limit_request_fields 100
        assert status("/", {"X-Big": "b" * 9000}) == 431  # limit_request_field_size 8190
        assert status("/health/live", {}) == 200
