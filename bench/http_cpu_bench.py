"""The server's own CPU per HTTP request, counted in instructions (callgrind), not seconds.

    scripts/bench.sh http_cpu      (or: .venv/bin/python -m bench.http_cpu_bench --help)

The HTTP benchmark (bench/http_api.py) compares AddToCart's rate with a bare DRF
insert's (bench/ceiling) on a machine shared with other work, so its ratio moves with
the load. This counts what one worker executes per request instead: cartlog's WSGI
application (bench.settings, as gunicorn serves it, metrics in multiprocess mode) is
called in process with the requests the load generator sends (bench/loadgen.py: per
10 AddToCart one StartCart), under `valgrind --tool=callgrind`, for a short and a long
run; the difference per request cancels start-up. gunicorn's HTTP parsing and
PostgreSQL's own CPU are not in it (the same for both endpoints, or the server's).

`--profile` runs the same requests under cProfile instead and prints the top functions.
Needs valgrind and PostgreSQL at BENCH_PG_URL.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from bench import callgrind, databases

DB = "cartlog_bench_http_cpu"
WARM_UP = 50  # requests before counting starts in both runs (caches, prepared statements)
ADDS_PER_CART = 10  # as bench/loadgen.py


def environ(method: str, path: str, token: str, body: bytes = b"") -> dict[str, Any]:
    """What gunicorn hands the application for a request from bench/loadgen.py's http.client."""
    return {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "RAW_URI": path,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "40000",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_ACCEPT_ENCODING": "identity",
        "HTTP_AUTHORIZATION": f"Token {token}",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


class Server:
    def __init__(self, fixture: dict[str, Any]) -> None:
        import django

        django.setup()
        from django.core.wsgi import get_wsgi_application

        self.app = get_wsgi_application()
        self.token, self.skus = fixture["token"], fixture["skus"]
        self.sent, self.cart_id = 0, ""

    def call(self, method: str, path: str, body: Any = None, expect: int = 200) -> bytes:
        raw = b"" if body is None else json.dumps(body).encode()
        answer: list[str] = []

        def start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
            answer.append(status)

        result = self.app(environ(method, path, self.token, raw), start_response)
        content = b"".join(result)
        result.close()  # type: ignore[attr-defined]
        if not answer[0].startswith(str(expect)):
            raise RuntimeError(f"{method} {path} answered {answer[0]}: {content[:300]!r}")
        return content

    def add(self) -> None:
        if self.sent % ADDS_PER_CART == 0:
            self.cart_id = json.loads(self.call("POST", "/api/carts", expect=201))["id"]
        body = {"sku": self.skus[self.sent % ADDS_PER_CART % len(self.skus)], "quantity": 1}
        self.call("POST", f"/api/carts/{self.cart_id}/items", body)
        self.sent += 1

    def ceiling(self) -> None:
        body = {"sku": self.skus[self.sent % ADDS_PER_CART % len(self.skus)], "quantity": 1}
        self.call("POST", "/bench/ceiling", body, expect=201)
        self.sent += 1

    def run(self, mode: str, count: int) -> None:
        step: Callable[[], None] = self.add if mode == "add" else self.ceiling
        for _ in range(count):
            step()


def server_env(url: str, metrics_dir: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "LOG_LEVEL": "WARNING",
        "PROMETHEUS_MULTIPROC_DIR": metrics_dir,  # as gunicorn.conf.py sets it
    }


def measured(args: list[str], url: str) -> None:
    with tempfile.TemporaryDirectory() as metrics_dir:
        command = [sys.executable, "-m", "bench.http_cpu_bench", *args, "--url", url]
        subprocess.run(command, check=True, cwd=databases.ROOT, env=server_env(url, metrics_dir))


def instructions(url: str, fixture: str, mode: str, count: int) -> int:
    with tempfile.TemporaryDirectory() as metrics_dir:
        command = [sys.executable, "-m", "bench.http_cpu_bench", "--run", mode, "--count", str(count)]
        return callgrind.instructions([*command, "--fixture", fixture, "--url", url], server_env(url, metrics_dir))


def prepare(url: str) -> str:
    with tempfile.TemporaryDirectory() as metrics_dir:
        done = subprocess.run(
            [sys.executable, "-m", "bench.http_fixture"],
            cwd=databases.ROOT, env=server_env(url, metrics_dir), check=True, capture_output=True,
        )  # fmt: skip
    return done.stdout.decode().strip().splitlines()[-1]


def child(args: argparse.Namespace) -> int:
    server = Server(json.loads(args.fixture))
    server.run(args.run, WARM_UP)
    if not args.profile:
        server.run(args.run, args.count)
        return 0
    profiler = cProfile.Profile()
    profiler.runcall(server.run, args.run, args.count)
    stats = pstats.Stats(profiler).sort_stats(args.sort)
    if args.dump:
        stats.dump_stats(f"{args.dump}.{args.run}")
    stats.print_stats(args.top)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", type=int, default=100, help="requests in the short run")
    parser.add_argument("--long", type=int, default=400, help="requests in the long run")
    parser.add_argument("--db", default=DB, help="the throwaway database's name (dropped and made anew)")
    parser.add_argument("--mode", choices=["add", "ceiling", "both"], default="both")
    parser.add_argument("--profile", action="store_true", help="cProfile instead of callgrind")
    parser.add_argument("--sort", default="cumulative", help="cProfile's sort key")
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("--dump", help="with --profile: also write the stats to DUMP.<mode>")
    parser.add_argument("--run", choices=["add", "ceiling"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fixture", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run is not None:
        return child(args)
    if not args.profile and shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    url = databases.recreate(args.db)
    fixture = prepare(url)
    modes = ["ceiling", "add"] if args.mode == "both" else [args.mode]
    for mode in modes:
        if args.profile:
            extra = ["--profile", "--sort", args.sort, "--top", str(args.top)]
            extra += ["--dump", args.dump] if args.dump else []
            measured(["--run", mode, "--count", str(args.long), "--fixture", fixture, *extra], url)
            continue
        short, long = instructions(url, fixture, mode, args.short), instructions(url, fixture, mode, args.long)
        per_request = (long - short) / (args.long - args.short)
        print(f"{mode}: instructions per request {per_request:,.0f} ({short:,} and {long:,} in all)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
