"""The advisory lock keys live in eventlog; migrations 0003 to 0007 spell them in SQL, frozen."""

from importlib import import_module

from eventlog.stores import postgres


def test_the_lock_keys_of_the_store_are_those_the_append_function_was_created_with() -> None:
    migration = import_module("eventlog.migrations.0003_append_function")
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)
    assert f"pg_advisory_xact_lock_shared({postgres.SLOW_LOCK})" in migration.FORWARD
    assert f"pg_advisory_lock({postgres.ORDER_LOCK})" in migration.FORWARD


def test_the_newest_append_function_takes_the_order_lock_where_a_cancel_releases_it() -> None:
    migration = import_module("eventlog.migrations.0007_append_releases_its_order_lock_when_canceled")
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)
    handled = migration.FORWARD.split("    BEGIN\n", 1)[1].split("    END;\n", 1)[0]
    assert f"pg_advisory_lock({postgres.ORDER_LOCK})" in handled
    assert "EXCEPTION WHEN OTHERS OR query_canceled THEN" in handled
    assert f"objid = {postgres.ORDER_LOCK}" in handled
