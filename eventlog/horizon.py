"""What holds the log's readers back on PostgreSQL: the oldest writing transaction of the server.

A gap-safe read (eventlog/stores/postgres.py: VISIBLE, ADR 0002) returns an event only once
the transaction that wrote it is older than every transaction still running on the whole
server, in any database: transaction ids are the server's, not a database's. So one long
write transaction anywhere (another application's migration, a session left idle in a
transaction) stops every consumer, the relay and the claim validator until it ends. Nothing
is lost meanwhile, but from inside cartlog it looks like views that stopped for no reason;
this module says why, for /health/ready and /metrics (ops/).

The symptom is measured on the log itself and needs no privilege: the newest committed event
is not readable yet, and was recorded `seconds` ago. The cause is read from pg_stat_activity:
the session whose transaction id is the oldest. Its transaction's start, state and database
are shown to roles that may see other roles' sessions (a superuser, or pg_read_all_stats);
for others PostgreSQL leaves them out, and so does this.
"""

from dataclasses import dataclass

from django.db import connection

# One statement, outside any transaction: a check must not hold the horizon back itself.
# `newest`: the last event, if the horizon has not passed its transaction yet. `oldest`:
# the session with the oldest transaction id (age() counts ids, the same order as the horizon).
HELD_BACK = """
WITH newest AS (
    SELECT EXTRACT(EPOCH FROM now() - recorded_at)::float8 AS waited
    FROM (SELECT transaction_id, recorded_at FROM eventlog_event ORDER BY position DESC LIMIT 1) AS last
    WHERE NOT (transaction_id < pg_snapshot_xmin(pg_current_snapshot()))
)
SELECT newest.waited, oldest.pid, oldest.datname, oldest.state,
       EXTRACT(EPOCH FROM now() - oldest.xact_start)::float8
FROM newest
LEFT JOIN LATERAL (
    SELECT pid, datname, state, xact_start FROM pg_stat_activity
    WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()
    ORDER BY age(backend_xid) DESC LIMIT 1
) AS oldest ON TRUE
"""


@dataclass(frozen=True)
class HeldBack:
    """The log's newest event waits for an older transaction of the server to end."""

    seconds: float  # since the newest event was recorded: readers have waited at least this long
    pid: int | None  # the session of the oldest transaction (None: it ended meanwhile)
    database: str | None
    state: str | None  # 'idle in transaction', 'active', ... (None where PostgreSQL hides it)
    open_seconds: float | None  # how long that transaction has been open (likewise)


def held_back() -> HeldBack | None:
    """What holds the readers back now, on this connection's server; None when nothing does
    (and always on SQLite, where every committed event is readable at once)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(HELD_BACK)
        row = cursor.fetchone()
    if row is None:
        return None
    waited, pid, database, state, open_seconds = row
    return HeldBack(max(waited, 0.0), pid, database, state, open_seconds)


def describe(held: HeldBack, whole: bool) -> str:
    """The sentence an operator reads. `whole` adds the session's pid, database and state,
    which name another application's infrastructure: a staff session's only (ops/health.py)."""
    sentence = f"the log's newest event has waited {held.seconds:.0f}s for an older transaction of the server to end"
    if held.open_seconds is not None:
        sentence += f" (open {held.open_seconds:.0f}s)"
    if whole and held.pid is not None:
        where = ", ".join(
            part for part in (f"pid {held.pid}", held.database and f"database {held.database}", held.state) if part
        )
        sentence += f": {where}"
    return sentence + "; consumers, the relay and sign-ups wait until it ends"
