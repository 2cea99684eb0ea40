"""Run a workload in N worker processes that start together, and measure its rate.

Processes, not threads: each writer gets its own interpreter, so the GIL of
one does not throttle the others (the load generator is not what we measure).
Each worker warms up (connections, imports) before a shared barrier, then runs
whole sessions for a fixed time; its rate is its commands over its own
elapsed time, and the writers' rates add up.
"""

import multiprocessing as mp
import statistics
import time
from dataclasses import dataclass
from typing import Any

WARMUP_SESSIONS = 3
BARRIER_SECONDS = 120  # for every writer to be set up


@dataclass(frozen=True)
class Sample:
    workload: str
    writers: int
    rate: float  # commands (or rows) per second, all writers together


def _worker(name: str, url: str, seconds: float, barrier: Any, results: Any) -> None:
    try:
        from bench.workloads import WORKLOADS

        workload = WORKLOADS[name](url)
        for _ in range(WARMUP_SESSIONS):
            workload.session()
        barrier.wait(BARRIER_SECONDS)
        done, start = 0, time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            done += workload.session()
        results.put(done / (time.perf_counter() - start))
    except BaseException as error:  # reported by measure(), which then stops the others
        barrier.abort()
        results.put(f"{type(error).__name__}: {error}")


def measure(name: str, url: str, writers: int, seconds: float) -> Sample:
    context = mp.get_context("spawn")
    barrier, results = context.Barrier(writers), context.Queue()
    processes = [context.Process(target=_worker, args=(name, url, seconds, barrier, results)) for _ in range(writers)]
    for process in processes:
        process.start()
    try:
        outcomes = [results.get(timeout=BARRIER_SECONDS + seconds + 60) for _ in processes]
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.terminate()
    failures = [outcome for outcome in outcomes if isinstance(outcome, str)]
    if failures:
        raise RuntimeError(f"{name} with {writers} writer(s) failed: {failures}")
    return Sample(workload=name, writers=writers, rate=sum(outcomes))


def medians(samples: list[Sample]) -> dict[tuple[str, int], float]:
    keys = {(s.workload, s.writers) for s in samples}
    return {key: statistics.median(s.rate for s in samples if (s.workload, s.writers) == key) for key in keys}
