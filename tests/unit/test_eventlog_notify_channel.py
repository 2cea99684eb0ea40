"""The channels appends notify are named once in eventlog; migrations 0004 and 0005 spell them in SQL, frozen."""

from importlib import import_module

from eventlog.stores import postgres


def test_the_append_function_notifies_the_channel_the_consumers_listen_on() -> None:
    migration = import_module("eventlog.migrations.0004_append_notifies")
    assert migration.CHANNEL == postgres.CHANNEL
    assert f"pg_notify('{postgres.CHANNEL}', split_part(p_stream_id, '-', 1))" in migration.FORWARD
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)


def test_the_append_function_also_notifies_the_channel_of_its_category() -> None:
    migration = import_module("eventlog.migrations.0005_append_notifies_its_category")
    assert migration.CHANNEL == postgres.CHANNEL
    assert postgres.channel_of("cart") == "cartlog_events.cart"
    assert "category text := split_part(p_stream_id, '-', 1);" in migration.FORWARD
    assert f"pg_notify('{postgres.CHANNEL}', category)" in migration.FORWARD
    assert f"pg_notify('{postgres.CHANNEL}.' || category, category)" in migration.FORWARD
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)


def test_a_token_change_also_notifies_the_channel_of_its_kind() -> None:
    migration = import_module("accounts.migrations.0004_token_notifications_by_kind")
    assert migration.CHANNEL == postgres.CHANNEL
    assert f"pg_notify('{postgres.channel_of('tokens')}', 'tokens')" in migration.FORWARD
