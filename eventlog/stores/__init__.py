"""Where the log lives: one `EventStore` protocol, three backends (PostgreSQL, SQLite, memory).

`for_connection` picks the SQL backend for a Django database alias; the
composition root (`cartlog.bootstrap`) decides which store the handler gets.
"""

from functools import cache

from django.db import connections

from .base import EventStore, LogReader, iter_all
from .memory import MemoryStore
from .postgres import PostgresStore
from .sqlite import SqliteStore

__all__ = ["EventStore", "LogReader", "MemoryStore", "PostgresStore", "SqliteStore", "for_connection", "iter_all"]


def for_connection(using: str = "default") -> EventStore:
    """The store over the Django database `using` (no connection is opened here)."""
    return _store(using, connections[using].vendor)


@cache
def _store(using: str, vendor: str) -> EventStore:
    return PostgresStore(using) if vendor == "postgresql" else SqliteStore(using)
