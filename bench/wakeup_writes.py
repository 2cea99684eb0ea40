"""The price of announcing appends on the write path: cart commands/s three ways (bench/wakeup_bench.py).

* at commit: every append notifies in its own transaction (bench/settings_notify_at_commit.py);
* after commit: the shipped way, the process's announcer (eventlog/announcer.py);
* none: nothing announced, nobody LISTENs (bench/settings_poll.py: CONSUMER_LISTEN off).
"""

import os
from collections.abc import Iterator
from contextlib import contextmanager

WAYS = {
    "at commit": "bench.settings_notify_at_commit",
    "after commit": "cartlog.settings",
    "none": "bench.settings_poll",
}


@contextmanager
def settings_module(name: str) -> Iterator[None]:
    """The writer processes started meanwhile (spawned: they read the environment) use `name`."""
    before = os.environ.get("DJANGO_SETTINGS_MODULE")
    os.environ["DJANGO_SETTINGS_MODULE"] = name
    try:
        yield
    finally:
        if before is None:
            del os.environ["DJANGO_SETTINGS_MODULE"]
        else:
            os.environ["DJANGO_SETTINGS_MODULE"] = before


def write_cost(url: str, rounds: int, seconds: float) -> dict[tuple[str, int], float]:
    """Cart commands/s (bench/workloads.py: CartlogCommands) for each of WAYS, with 1 and 4 writers.

    PostgreSQL takes one lock, for the whole server, from a notifying transaction's
    pre-commit to its end, commit flush included, so appends that notify cannot share a
    flush: "at commit" against "none" is that price, "after commit" what is left of it.
    """
    from bench.runner import measure, medians

    samples = []
    for round_no in range(1, rounds + 1):
        for writers in (1, 4):
            order = list(WAYS) if round_no % 2 else list(reversed(WAYS))  # none always goes first
            for way in order:
                with settings_module(WAYS[way]):
                    sample = measure("cartlog", url, writers, seconds)
                samples.append(type(sample)(workload=way, writers=writers, rate=sample.rate))
                print(f"round {round_no} {way:12} {writers} writer(s): {sample.rate:8.0f}/s", flush=True)
    return medians(samples)
