"""What /health/ready says of a transaction that holds the log's readers back (eventlog/horizon.py: describe)."""

from eventlog.horizon import HeldBack, describe

TAIL = "; consumers, the relay and sign-ups wait until it ends"


def test_anyone_reads_how_long_and_since_when_only_staff_reads_whose_session() -> None:
    held = HeldBack(seconds=42.4, pid=4711, database="billing", state="idle in transaction", open_seconds=97.6)

    assert describe(held, whole=False) == (
        "the log's newest event has waited 42s for an older transaction of the server to end (open 98s)" + TAIL
    )
    assert describe(held, whole=True) == (
        "the log's newest event has waited 42s for an older transaction of the server to end (open 98s):"
        " pid 4711, database billing, idle in transaction" + TAIL
    )


def test_what_postgresql_hides_from_another_role_is_left_out() -> None:
    hidden = HeldBack(seconds=12.0, pid=99, database="billing", state=None, open_seconds=None)
    ended = HeldBack(seconds=12.0, pid=None, database=None, state=None, open_seconds=None)

    assert describe(hidden, whole=True) == (
        "the log's newest event has waited 12s for an older transaction of the server to end: pid 99, database billing"
        + TAIL
    )
    assert describe(ended, whole=True) == (
        "the log's newest event has waited 12s for an older transaction of the server to end" + TAIL
    )
