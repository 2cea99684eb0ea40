"""The channel appends notify is named once in eventlog; migration 0004 spells it in SQL, frozen."""

from importlib import import_module

from eventlog.stores import postgres


def test_the_append_function_notifies_the_channel_the_consumers_listen_on() -> None:
    migration = import_module("eventlog.migrations.0004_append_notifies")
    assert migration.CHANNEL == postgres.CHANNEL
    assert f"pg_notify('{postgres.CHANNEL}', split_part(p_stream_id, '-', 1))" in migration.FORWARD
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)
