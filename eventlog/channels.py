"""The channels PostgreSQL announces appends on, and the statement that announces them.

An append of a stream is announced with its category as the payload on CHANNEL,
for readers of every category (consumers, the relay), and on the category's own
channel (`channel_of`) for a reader of a few (the read caches), so that a session
hears only what it LISTENs for (consumers/wakeup.py). Migrations 0004 to 0007 spell
the same in `eventlog_append`'s SQL, frozen; tests/unit/test_eventlog_notify_channel.py
checks that they agree. Who sends them, and when: eventlog/announcer.py.
"""

from collections.abc import Sequence

from psycopg.sql import quote

CHANNEL = "cartlog_events"


def channel_of(category: str) -> str:
    """The channel of one category's appends (a quoted identifier to LISTEN on: it holds a dot)."""
    return f"{CHANNEL}.{category}"


def notifications(categories: Sequence[str]) -> str:
    """One statement, its values quoted in it, that announces appends of `categories` as
    `eventlog_append` would. Whole SQL text, so that the announcer can send it as it is."""
    calls = [
        f"pg_notify({quote(CHANNEL)}, {quote(category)}), pg_notify({quote(channel_of(category))}, {quote(category)})"
        for category in categories
    ]
    return "SELECT " + ", ".join(calls)
