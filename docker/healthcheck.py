"""Container healthchecks for docker-compose.yml (the image has no curl, so Python asks).

    python docker/healthcheck.py web URL            the web app answers below 500
    python docker/healthcheck.py heartbeat NAME...  each consumer (or the relay) beat recently
    python docker/healthcheck.py broker             Celery's broker (CELERY_BROKER_URL) answers PING

Exit status 0 = healthy, 1 = not (with the reason on stderr), as Docker expects.
"""

import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect (SECURE_SSL_REDIRECT sends plain HTTP to https://) proves the app is serving."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def web(url: str) -> str | None:
    try:
        with urllib.request.build_opener(_NoRedirect).open(url, timeout=4) as response:
            status = int(response.status)
    except urllib.error.HTTPError as error:
        status = error.code  # a 404 or 403 still proves the app is serving
    except OSError as error:
        return f"{url}: {error}"
    return f"{url}: HTTP {status}" if status >= 500 else None


def heartbeat(names: list[str]) -> str | None:
    """A consumer beats every couple of seconds while its loop runs (consumers/heartbeat.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
    import django

    django.setup()
    from consumers.heartbeat import running

    silent = [name for name in names if not running(name)[0]]
    return f"no recent heartbeat from: {', '.join(silent)}" if silent else None


def broker() -> str | None:
    import redis

    try:
        redis.Redis.from_url(os.environ["CELERY_BROKER_URL"], socket_timeout=4).ping()
    except (KeyError, redis.RedisError) as error:
        return f"Celery broker: {error!r}"
    return None


def parse(argv: list[str]) -> Callable[[], str | None] | None:
    """The check that `argv` asks for, or None if it asks for none."""
    match argv:
        case ["web", url]:
            return lambda: web(url)
        case ["heartbeat", *names] if names:
            return lambda: heartbeat(names)
        case ["broker"]:
            return broker
    return None


def check(argv: list[str]) -> str | None:
    """The problem found, or None when healthy."""
    chosen = parse(argv)
    return chosen() if chosen else f"usage: {__doc__}"


if __name__ == "__main__":
    problem = check(sys.argv[1:])
    if problem:
        print(problem, file=sys.stderr)
    sys.exit(1 if problem else 0)
