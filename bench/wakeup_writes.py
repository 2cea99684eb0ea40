"""The price of NOTIFY on the write path: cart commands/s with it and without (bench/wakeup_bench.py)."""


def append_function(url: str, notify: bool) -> None:
    """`eventlog_append` as migration 0004 made it (NOTIFY), or as 0003 did (none)."""
    from importlib import import_module

    import psycopg

    if notify:
        sql = import_module("eventlog.migrations.0004_append_notifies").FORWARD
    else:
        sql = import_module("eventlog.migrations.0003_append_function").FORWARD
        sql = sql.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def write_cost(url: str, rounds: int, seconds: float) -> dict[tuple[str, int], float]:
    """Cart commands/s (bench/workloads.py: CartlogCommands) with the NOTIFY in the append and without.

    PostgreSQL takes one lock, for the whole server, from a notifying transaction's
    pre-commit to its end, so notifying commits do not overlap: this is its price.
    """
    from bench.runner import measure, medians

    samples = []
    try:
        for round_no in range(1, rounds + 1):
            for writers in (1, 4):
                for notify in (True, False) if round_no % 2 else (False, True):  # neither always goes first
                    append_function(url, notify)
                    sample = measure("cartlog", url, writers, seconds)
                    label = "NOTIFY" if notify else "none"
                    samples.append(type(sample)(workload=label, writers=writers, rate=sample.rate))
                    print(f"round {round_no} {label:6} {writers} writer(s): {sample.rate:8.0f}/s", flush=True)
    finally:
        append_function(url, notify=True)
    return medians(samples)
