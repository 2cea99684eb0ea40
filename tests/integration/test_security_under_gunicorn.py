"""What a security review checks on the running server, against a real gunicorn on PostgreSQL with
DEBUG off: the headers of every answer (Content-Security-Policy, framing, referrer, MIME sniffing),
HSTS and Secure cookies once HTTPS is on behind a proxy, and that a read asking for a log position
past the log's head cannot hold a server thread for MIN_POSITION_WAIT_SECONDS."""

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from knox.models import AuthToken

from eventlog import store
from tests.gunicorn_server import serving
from tests.processes import gunicorn_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HTTPS = {
    "SECURE_PROXY_SSL_HEADER": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SESSION_COOKIE_SECURE": "true",
}


@contextmanager
def gunicorn(tmp_path: Path, *args: str, **extra: str) -> Iterator[str]:
    env = gunicorn_env(tmp_path / "metrics", **{"LOG_LEVEL": "WARNING", **extra})
    with serving(env, *args, stdout=tmp_path / "gunicorn.log") as url:
        yield url


def get(url: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """The answer, whatever its status, redirects not followed."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    connection.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers or {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def token_for(username: str) -> str:
    user = get_user_model().objects.create_user(username=username, password="a-long-passphrase")
    return str(AuthToken.objects.create(user=user)[1])


def test_every_answer_carries_the_content_security_policy_and_the_browser_hardening_headers(tmp_path: Path) -> None:
    with gunicorn(tmp_path) as url:
        for path in ("/", "/login/", "/cart/", "/api/products", "/api/docs/", "/api/redoc/", "/no-such-page/",
                     "/api/no-such-thing", "/admin/login/"):  # fmt: skip
            response = get(url + path)
            assert response.status in (200, 404), (path, response.status)
            assert response.getheader("Content-Security-Policy") == POLICY, path
            assert response.getheader("X-Frame-Options") == "DENY", path
            assert response.getheader("X-Content-Type-Options") == "nosniff", path
            assert response.getheader("Referrer-Policy") == "same-origin", path
            assert response.getheader("Strict-Transport-Security") is None, path  # plain HTTP: no HSTS
        # Swagger UI's start-up script is a file of the site (?script), as script-src 'self' requires.
        page = urllib.request.urlopen(f"{url}/api/docs/", timeout=30).read().decode()
        assert "<script>" not in page and 'src="/api/docs/?script=' in page
        script = urllib.request.urlopen(f"{url}/api/docs/?script=", timeout=30)
        assert script.headers.get_content_type() == "application/javascript"
        assert b"SwaggerUIBundle" in script.read()


def test_the_policy_is_read_from_the_environment_and_an_empty_one_sends_none(tmp_path: Path) -> None:
    with gunicorn(tmp_path, CONTENT_SECURITY_POLICY="default-src 'none'") as url:
        assert get(f"{url}/api/products").getheader("Content-Security-Policy") == "default-src 'none'"
    with gunicorn(tmp_path, CONTENT_SECURITY_POLICY="") as url:
        assert get(f"{url}/api/products").getheader("Content-Security-Policy") is None


def test_behind_an_https_proxy_answers_carry_hsts_and_the_cookies_are_secure_httponly_and_lax(tmp_path: Path) -> None:
    with gunicorn(tmp_path, **HTTPS) as url:
        plain = get(f"{url}/login/")
        assert plain.status == 301 and plain.getheader("Location") == f"https://{urlsplit(url).netloc}/login/"
        assert get(f"{url}/health/live").status == 200  # the healthcheck and Prometheus stay on plain HTTP

        secure = get(f"{url}/login/", {"X-Forwarded-Proto": "https"})
        assert secure.status == 200
        assert secure.getheader("Strict-Transport-Security") == "max-age=31536000; includeSubDomains"
        cookies = SimpleCookie()
        for header in secure.headers.get_all("Set-Cookie") or []:
            cookies.load(header)
        csrf = cookies["csrftoken"]
        assert csrf["secure"] is True and csrf["samesite"] == "Lax"

        # The session cookie, as a log-in sets it: Secure, HttpOnly, SameSite=Lax.
        get_user_model().objects.create_user(username="ada", password="a-long-passphrase")
        opener = urllib.request.build_opener(NoRedirect)
        form = f"csrfmiddlewaretoken={csrf.value}&username=ada&password=a-long-passphrase".encode()
        request = urllib.request.Request(f"{url}/login/", data=form, headers={
            "X-Forwarded-Proto": "https", "Cookie": f"csrftoken={csrf.value}", "Referer": f"https://{urlsplit(url).netloc}/login/",
        })  # fmt: skip
        try:
            opener.open(request, timeout=30)
            raise AssertionError("a log-in redirects")
        except urllib.error.HTTPError as answer:
            assert answer.code == 302
            session = SimpleCookie()
            for header in answer.headers.get_all("Set-Cookie") or []:
                session.load(header)
        assert session["sessionid"]["secure"] is True
        assert session["sessionid"]["httponly"] is True
        assert session["sessionid"]["samesite"] == "Lax"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def test_a_min_position_past_the_logs_head_is_answered_at_once_and_holds_no_worker(tmp_path: Path) -> None:
    """Before: each such read waited the whole MIN_POSITION_WAIT_SECONDS, so as many of them as the
    server has threads (here 2 workers of one thread) kept every other request waiting that long."""
    token = token_for("mallory")
    wait = 8
    with gunicorn(tmp_path, MIN_POSITION_WAIT_SECONDS=str(wait)) as url:
        past_head = store.head_position() + 1_000_000

        def far_read(_: int) -> tuple[int, float]:
            started = time.monotonic()
            response = get(f"{url}/api/orders?min_position={past_head}", {"Authorization": f"Token {token}"})
            return response.status, time.monotonic() - started

        with ThreadPoolExecutor(4) as pool:
            far = pool.map(far_read, range(4))
            time.sleep(0.3)
            started = time.monotonic()
            assert get(f"{url}/api/products").status == 200
            bystander = time.monotonic() - started
            answers = list(far)
        assert [status for status, _ in answers] == [503] * 4
        assert max(seconds for _, seconds in answers) < wait / 2, answers
        assert bystander < wait / 2, bystander


def post_json(url: str, body: dict[str, object] | None, token: str, method: str = "POST") -> tuple[int, dict[str, str]]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Token {token}", "Content-Type": "application/json",
    })  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_the_servers_log_never_holds_the_shipping_details_a_checkout_sent(tmp_path: Path, catalog: None) -> None:
    """At DEBUG, with the access log on: an order placed with shipping details, a refused one, and
    Forget me. The details reach the log sealed, and nothing the server writes repeats them."""
    token = token_for("ada")
    shipping = {"name": "Ada Quillfeather", "email": "ada.quill@example.org", "address": "7 Lantern Row"}
    with gunicorn(tmp_path, "--access-logfile", "-", LOG_LEVEL="DEBUG") as url:
        for attempt in ({**shipping, "email": "ada.quill@"}, shipping):  # refused (400), then placed
            status, cart = post_json(f"{url}/api/carts", None, token)
            assert status == 201
            assert post_json(f"{url}/api/carts/{cart['id']}/items", {"sku": "COF-001", "quantity": 1}, token)[0] == 200
            status, _ = post_json(f"{url}/api/carts/{cart['id']}/checkout", {"shipping": attempt}, token)
        assert status == 200
        assert post_json(f"{url}/api/accounts/me", None, token, method="DELETE")[0] == 204
    written = (tmp_path / "gunicorn.log").read_text()
    assert written.count('/checkout HTTP/1.1" 400') == 1 and written.count('/checkout HTTP/1.1" 200') == 1
    assert "Bad Request: /api/carts/" in written  # Django's own line for the refused checkout
    for value in ("Quillfeather", "ada.quill", "Lantern Row"):
        assert value not in written, value
