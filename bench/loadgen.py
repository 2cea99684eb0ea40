"""The HTTP load generator: its own process, keep-alive connections, one per thread.

    python -m bench.loadgen --port P --token T --mode add|ceiling --skus A,B,...

`add`: each thread starts a cart (POST /api/carts) and sends AddToCart
(POST /api/carts/<id>/items, quantity 1) over distinct SKUs, moving to a new
cart before the 50-SKU limit. `ceiling`: the same bodies to /bench/ceiling.
With --probe, one more thread times GET /api/carts/<id> meanwhile.
Prints one JSON object: rate, counts, latency percentiles.
"""

import argparse
import http.client
import json
import statistics
import threading
import time
from typing import Any

ADDS_PER_CART = 10  # a realistic cart; the response serializes every line


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        started = time.perf_counter()
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=self.headers)
        response = self.conn.getresponse()
        payload = response.read()
        elapsed = time.perf_counter() - started
        return response.status, (json.loads(payload) if payload else None), elapsed


def new_cart(client: Client) -> str:
    status, body, _ = client.call("POST", "/api/carts")
    if status != 201:
        raise RuntimeError(f"POST /api/carts answered {status}: {body}")
    return str(body["id"])


def writer(args: argparse.Namespace, deadline: float, out: dict[str, Any]) -> None:
    client, skus = Client(args.port, args.token), args.skus.split(",")
    latencies, errors, sent, cart_id = [], 0, 0, None
    while time.perf_counter() < deadline:
        body = {"sku": skus[sent % ADDS_PER_CART % len(skus)], "quantity": 1}
        if args.mode == "add":
            if sent % ADDS_PER_CART == 0:
                cart_id = new_cart(client)
            status, _, elapsed = client.call("POST", f"/api/carts/{cart_id}/items", body)
            ok = status == 200
        else:
            status, _, elapsed = client.call("POST", "/bench/ceiling", body)
            ok = status == 201
        sent += 1
        errors += not ok
        latencies.append(elapsed)
    out.setdefault("latencies", []).extend(latencies)
    out["sent"] = out.get("sent", 0) + sent
    out["errors"] = out.get("errors", 0) + errors


def prober(args: argparse.Namespace, deadline: float, out: dict[str, Any]) -> None:
    client = Client(args.port, args.token)
    cart_id = new_cart(client)
    for sku in args.skus.split(",")[:5]:
        client.call("POST", f"/api/carts/{cart_id}/items", {"sku": sku, "quantity": 2})
    while time.perf_counter() < deadline:
        status, _, elapsed = client.call("GET", f"/api/carts/{cart_id}")
        if status == 200:
            out.setdefault("probe", []).append(elapsed)
        time.sleep(0.005)  # a reader, not a second load generator


def percentiles(values: list[float]) -> dict[str, float]:
    if len(values) < 2:
        return {}
    cuts = statistics.quantiles(values, n=100)
    return {"p50_ms": cuts[49] * 1000, "p99_ms": cuts[98] * 1000, "count": len(values)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--mode", choices=["add", "ceiling"], required=True)
    parser.add_argument("--skus", required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--probe", action="store_true")
    args = parser.parse_args()

    out: dict[str, Any] = {}
    lock = threading.Lock()
    deadline = time.perf_counter() + args.seconds
    threads = [threading.Thread(target=_guarded, args=(writer, args, deadline, out, lock)) for _ in range(args.threads)]
    if args.probe:
        threads.append(threading.Thread(target=_guarded, args=(prober, args, deadline, out, lock)))
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    result = {
        "mode": args.mode,
        "rate": out.get("sent", 0) / elapsed,
        "sent": out.get("sent", 0),
        "errors": out.get("errors", 0),
        "failures": out.get("failures", []),
        "latency": percentiles(out.get("latencies", [])),
        "get_latency": percentiles(out.get("probe", [])),
    }
    print(json.dumps(result))
    return 0


def _guarded(target: Any, args: argparse.Namespace, deadline: float, out: dict[str, Any], lock: Any) -> None:
    mine: dict[str, Any] = {}
    try:
        target(args, deadline, mine)
    except Exception as error:
        mine.setdefault("failures", []).append(f"{type(error).__name__}: {error}")
    with lock:
        for key, value in mine.items():
            out[key] = out.get(key, 0 if isinstance(value, int) else []) + value


if __name__ == "__main__":
    raise SystemExit(main())
