"""A rebuild while the shop keeps writing: no command fails, no event is lost at the swap.

Writer threads run shopping sessions through the command layer the whole time
(each its own connection, as request threads are), and a consumer thread keeps
the async test view live, while the main thread rebuilds and swaps. Afterwards
every cart_view row must equal the fold of its whole stream (what the API's
`?at_version=<current>` replays), including carts written during the swap.
"""

import random
import threading
from collections.abc import Iterator

import pytest
from django.db import connection

from carts.handler import load
from consumers import registry as consumer_registry
from consumers import runner
from consumers.transports import TableTransport
from eventlog import store
from kernel.principal import Principal
from projections import cart_view
from rebuilds import service, shadow

from .rebuild_support import drain_consumers, drop_tables, register_item_counts, rows, session, shop, skus

pytestmark = pytest.mark.django_db(transaction=True)


class Writers:
    """Threads that shop until stopped; every exception they meet is kept."""

    def __init__(self, count: int) -> None:
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.carts: list[str] = []
        self.catalog = skus()
        self.threads = [threading.Thread(target=self._shop, args=(n,)) for n in range(count)]

    def _shop(self, n: int) -> None:
        from carts.handler import Context

        rng = random.Random(n)
        try:
            while not self.stop.is_set():
                self.carts.append(session(rng, self.catalog, Context(actor=Principal.parse(f"writer:{n}"))))
                # A shopper thinks between carts; without it SQLite's busy wait (which is
                # not a queue) can starve any other writer, a rebuild included.
                self.stop.wait(0.02)
        except BaseException as error:
            self.errors.append(error)
        finally:
            connection.close()

    def __enter__(self) -> "Writers":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)


@pytest.fixture
def item_counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    module = register_item_counts(monkeypatch)
    yield
    drop_tables(module.TABLE, shadow.shadow_name(module.TABLE))


def all_cart_ids() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT stream_id FROM eventlog_event WHERE stream_id LIKE 'cart-%%'")
        return {row[0].removeprefix("cart-") for row in cursor.fetchall()}


def wait_for_more_events(than: int, count: int = 30) -> None:
    for _ in range(400):
        if store.head_position() >= than + count:
            return
        threading.Event().wait(0.025)


def test_rebuilds_under_writers_lose_nothing_and_fail_no_command(seeded_catalog: None, item_counts: None) -> None:
    shop(30, seed=3)
    drain_consumers()
    stop_consumers = threading.Event()
    consumers = runner.run(consumer_registry.projection_consumers(), TableTransport, stop_consumers)
    with Writers(3) as writers:
        for name in ("cart_view", "test_item_counts"):
            wait_for_more_events(store.head_position())
            started_at = store.head_position()
            outcome = service.rebuild(name, batch_size=20, pause=0.01)
            assert outcome.status == "swapped"
            assert outcome.position > started_at  # the shop wrote while it rebuilt
        wait_for_more_events(store.head_position())  # writes after the swaps land in the new tables
    stop_consumers.set()
    runner.wait(consumers, stop_consumers)

    assert writers.errors == []
    assert len(writers.carts) > 3
    live = rows(cart_view.TABLE, cart_view.KEY)
    assert set(live) == all_cart_ids()
    for cart_id, row in live.items():
        assert cart_view.from_row(row) == load(cart_id), cart_id
    drain_consumers()
    assert service.rebuild("test_item_counts", verify=True).differences == []
