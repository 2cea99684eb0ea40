"""The read caches (kernel/fresh_cache.py) on a real LISTEN session: an API token and a product
are read once, and a change made elsewhere (another connection, as another process would) stops
being served from memory once its notification arrives: a revoked token, a deactivated account,
a new price, a rebuilt catalog. While the session is away nothing is served from memory."""

import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import TOKENS, TokenAuthentication
from cartlog import bootstrap
from carts import services as carts
from carts.handler import Context
from catalog import services as catalog
from catalog.queries import product_names, product_snapshot
from consumers import wakeup
from eventlog import store
from kernel.principal import Principal
from tests.fault_helpers import terminate_backends

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
WAIT = 10.0  # seconds: an upper bound, never the expected time
LISTEN_SESSION = "cartlog-listen-caches pid=%"


def eventually(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"{what}: still not after {WAIT}s"
        time.sleep(0.01)


def elsewhere(work: Callable[[], object]) -> None:
    """Run `work` on a connection of its own and commit it, as another process would."""

    def run() -> None:
        try:
            with transaction.atomic():
                work()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(WAIT)


@pytest.fixture
def caches() -> Iterator[None]:
    bootstrap.install_read_caches(on=True)
    try:
        eventually(lambda: (listener := TOKENS.feed()) is not None and listener.connected, "the LISTEN session")
        yield
    finally:
        bootstrap.install_read_caches(on=False)
        wakeup.release_for_caches()


def authenticate(token: str) -> str:
    user, _ = TokenAuthentication().authenticate_credentials(token.encode())
    return str(user.get_username())


def queries(work: Callable[[], object]) -> int:
    with CaptureQueriesContext(connection) as captured:
        work()
    return len(captured.captured_queries)


def refused(token: str) -> bool:
    try:
        authenticate(token)
    except AuthenticationFailed:
        return True
    return False


@pytest.fixture
def token() -> str:
    user = get_user_model().objects.create_user(username="nina", password="a-long-passphrase")
    _, token = AuthToken.objects.create(user=user)
    return str(token)


def test_a_checked_token_is_not_read_again(caches: None, token: str) -> None:
    assert queries(lambda: authenticate(token)) == 2  # knox: the token, then the account's tokens
    assert queries(lambda: authenticate(token)) == 0
    assert authenticate(token) == "nina"


def test_a_token_revoked_elsewhere_is_refused_once_the_notification_arrives(caches: None, token: str) -> None:
    authenticate(token)
    elsewhere(lambda: AuthToken.objects.all().delete())
    eventually(lambda: refused(token), "the revoked token refused")
    assert refused(token)


def test_an_account_deactivated_elsewhere_loses_its_tokens(caches: None, token: str) -> None:
    authenticate(token)
    elsewhere(lambda: get_user_model().objects.filter(username="nina").update(is_active=False))
    eventually(lambda: refused(token), "the inactive account's token refused")


def test_an_expired_token_is_never_served_from_memory(caches: None) -> None:
    user = get_user_model().objects.create_user(username="otto", password="a-long-passphrase")
    _, token = AuthToken.objects.create(user=user, expiry=timedelta(seconds=1))
    assert authenticate(token) == "otto"
    time.sleep(1.1)  # expired by the clock: nothing in the database changed, nothing is announced
    assert refused(token)


def test_a_product_is_read_once_and_a_new_price_replaces_it(caches: None, listed_catalog: None) -> None:
    assert product_snapshot("COF-001").price == Decimal("12.50")  # type: ignore[union-attr]
    # The fixture's own product events are announced a moment after they commit: once those have
    # arrived, the row is read no more.
    eventually(lambda: queries(lambda: product_snapshot("COF-001")) == 0, "the product served from memory")
    assert queries(lambda: product_snapshot("COF-001")) == 0
    assert queries(lambda: product_names(["COF-001"])) == 0
    elsewhere(lambda: catalog.change_price("COF-001", Decimal("13.75"), actor="staff:1"))
    eventually(lambda: product_snapshot("COF-001").price == Decimal("13.75"), "the new price")  # type: ignore[union-attr]


def test_a_rebuilt_view_put_live_is_announced(caches: None, catalog: None) -> None:
    product_snapshot("COF-001")
    with connection.cursor() as cursor:  # what a bug fix would change, without any product event
        cursor.execute("UPDATE catalog_product SET name = 'Coffee, rebuilt' WHERE sku = 'COF-001'")
    assert product_names(["COF-001"]) != {"COF-001": "Coffee, rebuilt"}  # still the cached row
    elsewhere(lambda: store.announce(["product"]))  # what rebuilds/finish.py does when it swaps
    eventually(lambda: product_names(["COF-001"]) == {"COF-001": "Coffee, rebuilt"}, "the rebuilt name")


def test_while_the_session_is_away_nothing_is_served_from_memory(caches: None, token: str, catalog: None) -> None:
    authenticate(token)
    product_snapshot("COF-001")
    listener = TOKENS.feed()
    assert isinstance(listener, wakeup.Listener)
    assert terminate_backends(LISTEN_SESSION) >= 1
    eventually(lambda: not listener.connected, "the listener noticing its session died")
    # Revoked while nobody listens: no notification will ever say so; the reconnect must.
    AuthToken.objects.all().delete()
    assert refused(token)  # away: read from the database; back: the reconnect dropped every entry
    eventually(lambda: listener.connected, "a new LISTEN session")
    assert refused(token)
    assert queries(lambda: product_snapshot("COF-001")) == 1  # every entry dropped at the reconnect
    assert queries(lambda: product_snapshot("COF-001")) == 0


def test_the_caches_session_hears_what_they_hold_and_not_every_cart_command(caches: None, catalog: None) -> None:
    """A web process's caches listen on the channels of products and tokens only (eventlog
    migration 0005, accounts 0004): a cart command does not wake them."""
    listener = TOKENS.feed()
    assert isinstance(listener, wakeup.Listener)
    carts.start_cart(Context(actor=Principal.user(1)))  # an append of a cart: its own transaction, committed
    elsewhere(lambda: store.announce(["product"]))  # committed after it
    eventually(lambda: "product" in listener.announced, "the product's announcement")
    # Notifications arrive in commit order: had the session heard the cart's, it would have come first.
    assert "cart" not in listener.announced


@pytest.mark.parametrize("cached", [True, False], ids=["cached", "uncached"])
def test_a_line_the_catalog_no_longer_holds_is_named_by_its_sku(
    catalog: None, cached: bool, request: pytest.FixtureRequest
) -> None:
    # A cart or an order keeps a line whose product row is gone (a rebuilt catalog without it): the
    # line is shown by its SKU, never blank and never an error, with the cache on or off.
    if cached:
        request.getfixturevalue("caches")
    assert product_names(["COF-001", "TEA-404"]) == {"COF-001": "Beans", "TEA-404": "TEA-404"}
