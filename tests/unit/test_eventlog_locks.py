"""The advisory lock keys live in eventlog; migration 0003 spells them in SQL, frozen."""

from importlib import import_module

from eventlog.stores import postgres


def test_the_lock_keys_of_the_store_are_those_the_append_function_was_created_with() -> None:
    migration = import_module("eventlog.migrations.0003_append_function")
    assert (migration.ORDER_LOCK, migration.SLOW_LOCK) == (postgres.ORDER_LOCK, postgres.SLOW_LOCK)
    assert f"pg_advisory_xact_lock_shared({postgres.SLOW_LOCK})" in migration.FORWARD
    assert f"pg_advisory_lock({postgres.ORDER_LOCK})" in migration.FORWARD
