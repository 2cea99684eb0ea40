"""The price of announcing appends on the write path: cart commands/s two ways (bench/wakeup_bench.py).

* at commit: every append notifies in its own transaction (bench/settings_notify_at_commit.py), as before;
* after commit: the shipped way, the process's announcer (eventlog/announcer.py).

Not a third way "nothing announced": the only switch for it, CONSUMER_LISTEN off, also
turns the read caches off, so every AddToCart would read its product again.
"""

import os
from unittest import mock

WAYS = {"at commit": "bench.settings_notify_at_commit", "after commit": "cartlog.settings"}


def write_cost(url: str, rounds: int, seconds: float) -> dict[tuple[str, int], float]:
    """Cart commands/s (bench/workloads.py: CartlogCommands) for each of WAYS, with 1 and 4 writers.

    PostgreSQL takes one lock, for the whole server, from a notifying transaction's
    pre-commit to its end, commit flush included, so appends that notify cannot share a
    flush: "after commit" against "at commit" is what the announcer wins back.
    """
    from bench.runner import measure, medians

    samples = []
    for round_no in range(1, rounds + 1):
        for writers in (1, 4):
            order = list(WAYS) if round_no % 2 else list(reversed(WAYS))  # neither always goes first
            for way in order:
                # The writer processes are spawned: they read the settings module from the environment.
                with mock.patch.dict(os.environ, {"DJANGO_SETTINGS_MODULE": WAYS[way]}):
                    sample = measure("cartlog", url, writers, seconds)
                samples.append(type(sample)(workload=way, writers=writers, rate=sample.rate))
                print(f"round {round_no} {way:12} {writers} writer(s): {sample.rate:8.0f}/s", flush=True)
    return medians(samples)
