"""The channels appends notify are named once in eventlog; migrations 0004 and 0005 spell them in SQL, frozen."""

from importlib import import_module

import pytest

from eventlog import channels
from eventlog.stores import postgres


def test_the_append_function_notifies_the_channel_the_consumers_listen_on() -> None:
    migration = import_module("eventlog.migrations.0004_append_notifies")
    assert migration.CHANNEL == channels.CHANNEL
    assert f"pg_notify('{channels.CHANNEL}', split_part(p_stream_id, '-', 1))" in migration.FORWARD
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)


def test_the_append_function_also_notifies_the_channel_of_its_category() -> None:
    migration = import_module("eventlog.migrations.0005_append_notifies_its_category")
    assert migration.CHANNEL == channels.CHANNEL
    assert channels.channel_of("cart") == "cartlog_events.cart"
    assert "category text := split_part(p_stream_id, '-', 1);" in migration.FORWARD
    assert f"pg_notify('{channels.CHANNEL}', category)" in migration.FORWARD
    assert f"pg_notify('{channels.CHANNEL}.' || category, category)" in migration.FORWARD
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)


def test_a_token_change_also_notifies_the_channel_of_its_kind() -> None:
    migration = import_module("accounts.migrations.0004_token_notifications_by_kind")
    assert migration.CHANNEL == channels.CHANNEL
    assert f"pg_notify('{channels.channel_of('tokens')}', 'tokens')" in migration.FORWARD


@pytest.mark.parametrize(
    "name", ["0006_append_may_leave_notifying_to_its_process", "0007_append_releases_its_order_lock_when_canceled"]
)
def test_the_append_function_notifies_only_when_asked_to(name: str) -> None:
    migration = import_module(f"eventlog.migrations.{name}")
    assert migration.CHANNEL == channels.CHANNEL
    assert "p_notify boolean DEFAULT true" in migration.FORWARD
    assert (
        f"IF p_notify THEN\n        PERFORM pg_notify('{channels.CHANNEL}', category);\n"
        f"        PERFORM pg_notify('{channels.CHANNEL}.' || category, category);\n    END IF;"
    ) in migration.FORWARD
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)


def test_the_announcer_sends_what_the_append_function_would() -> None:
    assert channels.notifications(["cart", "product"]) == (
        "SELECT pg_notify('cartlog_events', 'cart'), pg_notify('cartlog_events.cart', 'cart'), "
        "pg_notify('cartlog_events', 'product'), pg_notify('cartlog_events.product', 'product')"
    )
    assert channels.notifications(["it's"]) == (
        "SELECT pg_notify('cartlog_events', 'it''s'), pg_notify('cartlog_events.it''s', 'it''s')"
    )


def test_every_category_a_read_cache_watches_is_notified_at_commit() -> None:
    """A cache has no poll: a change it watches must not wait for an announcer that may die first."""
    from django.conf import settings

    from accounts.authentication import TOKENS
    from catalog.queries import PRODUCTS

    assert set(PRODUCTS.kinds) == {"product"} <= settings.EVENTLOG_ANNOUNCE_AT_COMMIT
    # Tokens are not a stream: a trigger on their table notifies, in the changing transaction.
    assert TOKENS.kinds == ("tokens",)
    assert "tokens" not in settings.EVENTLOG_ANNOUNCE_AT_COMMIT
