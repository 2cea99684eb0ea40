"""Benchmarks 2 and 3: AddToCart over HTTP, and GET /api/carts/<id> latency under that load.

    scripts/bench.sh http     (or: .venv/bin/python -m bench.http_api --help)

gunicorn serves cartlog (2 workers x 4 threads, as scripts/run.sh) with
bench.settings, which adds one bare DRF endpoint inserting one row into a
plain table (bench/ceiling, the framework's ceiling). A separate load
generator process (bench/loadgen.py: threads, keep-alive) drives each in
turn, rounds interleaved; medians are quoted.
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import databases, report

DB = "cartlog_bench_http"
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "bench"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bench.settings", "LOG_LEVEL": "WARNING"}


def prepare(url: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.http_fixture"], cwd=ROOT, env=server_env(url), check=True, capture_output=True
    )
    return dict(json.loads(done.stdout.decode().strip().splitlines()[-1]))


def start_server(url: str, port: int) -> subprocess.Popen[bytes]:
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    command = [gunicorn, "cartlog.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4"]
    server = subprocess.Popen([*command, "--log-level", "warning"], cwd=ROOT, env=server_env(url))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("gunicorn did not start")


def load(port: int, fixture: dict[str, Any], mode: str, seconds: float, threads: int) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.loadgen", "--port", str(port), "--token", fixture["token"]]
    command += ["--mode", mode, "--skus", ",".join(fixture["skus"]), "--seconds", str(seconds)]
    command += ["--threads", str(threads)] + (["--probe"] if mode == "add" else [])
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return dict(json.loads(done.stdout))


def cart_api_available(port: int, token: str) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/api/carts", headers={"Authorization": f"Token {token}"})
    return conn.getresponse().status == 201


def median_of(results: list[dict[str, Any]], *path: str) -> float:
    values = []
    for result in results:
        value: Any = result
        for key in path:
            value = value.get(key, {}) if isinstance(value, dict) else {}
        if isinstance(value, int | float):
            values.append(float(value))
    return statistics.median(values) if values else float("nan")


def table(results: dict[str, list[dict[str, Any]]]) -> str:
    ceiling, add = results["ceiling"], results.get("add", [])
    top = median_of(ceiling, "rate")
    lines = [
        "| endpoint | requests/s | p50 ms | p99 ms | / ceiling |",
        "|---|---:|---:|---:|---:|",
        f"| bare DRF insert (`POST /bench/ceiling`) | {top:,.0f} | {median_of(ceiling, 'latency', 'p50_ms'):.1f}"
        f" | {median_of(ceiling, 'latency', 'p99_ms'):.1f} | 1.00 |",
    ]
    if add:
        rate = median_of(add, "rate")
        lines.append(
            f"| AddToCart (`POST /api/carts/<id>/items`) | {rate:,.0f} | {median_of(add, 'latency', 'p50_ms'):.1f}"
            f" | {median_of(add, 'latency', 'p99_ms'):.1f} | {rate / top:.2f} |"
        )
        lines.append(
            f"\n`GET /api/carts/<id>` under the AddToCart load: p50 {median_of(add, 'get_latency', 'p50_ms'):.1f} ms,"
            f" p99 {median_of(add, 'get_latency', 'p99_ms'):.1f} ms"
            f" (medians over rounds; {int(median_of(add, 'get_latency', 'count'))} GETs per round)."
        )
        errors = sum(r["errors"] for r in add) + sum(len(r["failures"]) for r in add)
        lines.append(f"Non-2xx answers or client failures during AddToCart: {errors}.")
    else:
        lines.append("\nThe cart API (`POST /api/carts`) was not available: AddToCart and GET not measured.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=8, help="load generator threads (connections)")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(argv)

    url = databases.recreate(DB)
    fixture = prepare(url)
    port = free_port()
    server = start_server(url, port)
    results: dict[str, list[dict[str, Any]]] = {"ceiling": []}
    try:
        modes = ["ceiling", "add"] if cart_api_available(port, fixture["token"]) else ["ceiling"]
        for round_no in range(1, args.rounds + 1):
            for mode in modes:
                result = load(port, fixture, mode, args.seconds, args.threads)
                results.setdefault(mode, []).append(result)
                print(f"round {round_no} {mode:8} {result['rate']:7.0f} req/s  errors {result['errors']}", flush=True)
    finally:
        server.terminate()
        server.wait(30)

    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        f"{when}; {os.cpu_count()} CPUs shared by server, database and load generator; gunicorn 2 workers x 4 "
        f"threads; {args.threads} keep-alive client threads; medians of {args.rounds} rounds of {args.seconds:g} s."
    )
    result_text = f"{header}\n\n{table(results)}\n"
    print("\n" + result_text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "http.json").write_text(json.dumps(results, indent=1))
    if not args.no_doc and not report.write_results("http", result_text):
        print("docs/benchmarks.md has no `<!-- results: http -->` block; not written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
