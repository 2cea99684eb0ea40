"""The three things the command benchmark times, each as `setup` + one `session`.

A session is what one shopper does: start a cart and add three items (four
commands), on a cart of its own. The ceiling's session is one plain INSERT and
COMMIT. Each workload runs inside its own worker process (see runner.py).
"""

import os
from typing import Protocol
from urllib.parse import urlsplit
from uuid import uuid4

from kernel.principal import Principal

SKUS = ("COF-001", "KIT-002", "TEA-001")
PRICES = {"COF-001": "12.50", "KIT-002": "5.00", "TEA-001": "9.50"}


class Workload(Protocol):
    def session(self) -> int:
        """Run one session; return how many commands (or rows) it made."""
        ...


class PlainInsert:
    """The ceiling: one single-row INSERT per transaction, nothing else."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        self.body = '{"sku": "COF-001", "quantity": 1, "unit_price": "12.50"}'

    def session(self) -> int:
        self.conn.execute("INSERT INTO bench_plain_insert (stream, body) VALUES (%s, %s)", [uuid4().hex, self.body])
        return 1


class CartlogCommands:
    """cartlog's command layer, exactly as the API calls it (carts.services)."""

    def __init__(self, url: str) -> None:
        os.environ["DATABASE_URL"] = url
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")
        os.environ.setdefault("LOG_LEVEL", "WARNING")
        import django

        django.setup()
        from carts import services
        from carts.handler import Context

        self.services = services
        self.context = Context(actor=Principal.parse(f"user:{os.getpid()}"))

    def session(self) -> int:
        cart_id = self.services.start_cart(self.context).state.cart_id
        for sku in SKUS:
            self.services.add_to_cart(self.context, cart_id, sku, 1)
        return 1 + len(SKUS)


class EventsourcingCommands:
    """The same commands on the `eventsourcing` library (PyPI), PostgreSQL persistence.

    Its add_item is the same load-decide-save cycle as ours; it is handed the
    price instead of reading the catalog, which, if anything, favours it.
    """

    cache: dict[str, str] = {}  # the library's defaults: no aggregate cache

    def __init__(self, url: str, *, create_tables: bool = False) -> None:
        from bench.es_cart import Carts

        parts = urlsplit(url)
        self.app = Carts(
            env={
                **self.cache,
                "PERSISTENCE_MODULE": "eventsourcing.postgres",
                "POSTGRES_DBNAME": parts.path.lstrip("/"),
                "POSTGRES_HOST": parts.hostname or "127.0.0.1",
                "POSTGRES_PORT": str(parts.port or 5432),
                "POSTGRES_USER": parts.username or "postgres",
                "POSTGRES_PASSWORD": parts.password or "",
                # Made once by bench.commands.prepare: writers creating them at once collide.
                "CREATE_TABLE": "yes" if create_tables else "no",
            }
        )

    def session(self) -> int:
        cart_id = self.app.start_cart(owner=f"user:{os.getpid()}")
        for sku in SKUS:
            self.app.add_item(cart_id, sku, 1, PRICES[sku])
        return 1 + len(SKUS)


class EventsourcingCachedCommands(EventsourcingCommands):
    """`eventsourcing` with its aggregate cache, not fast-forwarded: like cartlog's last-written
    carts, a command on a cart the process saved last is decided without reading the cart.
    (Unlike cartlog it does not catch up from a failed save: a stale aggregate is the caller's
    error. Here each writer has carts of its own, so none is ever stale.)"""

    cache = {"AGGREGATE_CACHE_MAXSIZE": "10000", "AGGREGATE_CACHE_FASTFORWARD": "n"}


WORKLOADS: dict[str, type] = {
    "plain_insert": PlainInsert,
    "cartlog": CartlogCommands,
    "eventsourcing": EventsourcingCommands,
    "eventsourcing_cached": EventsourcingCachedCommands,
}
