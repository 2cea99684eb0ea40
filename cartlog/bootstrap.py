"""Wiring in one place, done once when Django starts (`CartlogConfig.ready`).

The composition root: the only module that knows every package. It registers
the event types each domain defines, chooses the event store and builds the
cart command handler on it, and hands the consumers of the higher layers to
`consumers.registry`. Nothing here runs at import time.
"""

from collections.abc import Sequence
from functools import partial

from carts.decider import CartState
from carts.handler import CommandHandler
from catalog.handler import CatalogHandler
from eventlog import registry
from eventlog.alongside import Row
from eventlog.records import NewEvent
from eventlog.stores import EventStore
from inventory.handler import StockHandler


def start() -> None:
    register_event_types()
    install_command_handler()
    install_catalog_handler()
    install_stock_handler()
    install_consumers()
    install_read_caches()


def register_event_types() -> None:
    from carts.events import event_types as cart_event_types
    from catalog.events import event_types as product_event_types
    from claims.events import event_types as claim_event_types
    from inventory.events import event_types as stock_event_types
    from privacy.events import event_types as person_event_types

    for event_type in [
        *cart_event_types(),
        *claim_event_types(),
        *product_event_types(),
        *person_event_types(),
        *stock_event_types(),
    ]:
        registry.register(event_type)


def install_read_caches(*, on: bool | None = None) -> None:
    """Feed the token and product caches from the process's LISTEN session (settings.READ_CACHES)."""
    from django.conf import settings

    from accounts.authentication import TOKENS
    from catalog.queries import PRODUCTS
    from consumers import wakeup

    enabled = settings.READ_CACHES if on is None else on
    # One LISTEN session for both, on the channels of what they hold only (not every cart command's).
    feed = partial(wakeup.for_caches, [*TOKENS.kinds, *PRODUCTS.kinds]) if enabled else lambda: None
    for cache in (TOKENS, PRODUCTS):
        cache.clear()
        cache.feed = feed


def event_store() -> EventStore:
    """The log in the default database: PostgreSQL or SQLite, by its vendor."""
    from eventlog import stores

    return stores.for_connection("default")


def command_handler(store: EventStore | None = None) -> CommandHandler:
    """The cart handler on `store` (default: `event_store()`), with the database's
    idempotency records and the inline projections."""
    from django.conf import settings

    from carts import idempotency, snapshots
    from carts.last_written import LastWritten

    return CommandHandler(
        store=store or event_store(),
        processed=idempotency,  # the module's lookup/record: the records in the database
        project=_inline_projections,
        max_attempts=settings.COMMAND_MAX_ATTEMPTS,
        snapshots=snapshots,  # the module's find/save: the snapshots in the database
        last_written=LastWritten(settings.CART_STATES_REMEMBERED),  # this process's own
    )


def install_command_handler() -> None:
    from carts import handler

    handler.install(command_handler())


def _inline_projections(state: CartState, events: Sequence[NewEvent]) -> Sequence[Row]:
    from projections import inline

    return inline.cart_rows(state, events)


def catalog_handler(store: EventStore | None = None) -> CatalogHandler:
    """The catalog handler on `store` (default: `event_store()`): its inline
    projections (the product table, the search index) are applied in its transaction."""
    from projections import inline

    return CatalogHandler(store=store or event_store(), project=lambda events: inline.apply(events))


def install_catalog_handler() -> None:
    from catalog import handler

    handler.install(catalog_handler())


def stock_handler(store: EventStore | None = None) -> StockHandler:
    """The stock handler on `store` (default: `event_store()`), `stock_levels` applied in its transaction."""
    from catalog.models import Product
    from projections import inline

    return StockHandler(
        store=store or event_store(),
        project=lambda events: inline.apply(events),
        is_product=lambda sku: Product.objects.filter(sku=sku).exists(),
    )


def install_stock_handler() -> None:
    from catalog import seeding
    from inventory import handler

    handler.install(stock_handler())
    seeding.add_step(_stock_demo_products)  # seed_catalog stocks what it lists (catalog knows nothing of stock)


def _stock_demo_products() -> str:
    from catalog.seed_data import PRODUCTS
    from inventory.seeding import stock_demo_products

    return stock_demo_products([sku for sku, *_ in PRODUCTS])


def install_consumers() -> None:
    from accounts import account_creator
    from analytics import archive_consumer
    from claims import validator
    from consumers import registry as consumers
    from relay import cart_state, kafka_transport

    consumers.install(
        [
            consumers.projection_consumers,
            archive_consumer.consumers,
            validator.consumers,
            account_creator.consumers,
            cart_state.consumers,
        ],
        transports={"kafka": kafka_transport.KafkaTransport},
        processes=["relay"],  # not a consumer, but its checkpoint is shown beside theirs
        coverage={"kafka": kafka_transport.covered},
    )
