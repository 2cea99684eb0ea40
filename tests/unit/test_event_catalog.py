"""The event catalog in docs/ is generated from the code and must match it."""

import pytest
from django.core.management import call_command

from eventlog import registry


def test_the_committed_event_catalog_matches_the_code() -> None:
    call_command("event_catalog", "--check")


def test_every_cart_event_is_in_the_catalog() -> None:
    from carts.events import EVENT_CLASSES

    assert set(EVENT_CLASSES) <= {t.name for t in registry.all_types()}


def test_an_old_schema_version_is_upcast_when_read_and_needs_an_upcaster() -> None:
    registry.register(
        registry.EventType(name="TestRenamed", schema_version=2, upcasters={1: lambda d: {"new": d["old"]}})
    )
    try:
        assert registry.upcast("TestRenamed", 1, {"old": 5}) == (2, {"new": 5})
        with pytest.raises(ValueError, match="no upcaster"):
            registry.register(registry.EventType(name="TestBroken", schema_version=3, upcasters={1: dict}))
    finally:
        registry._types.pop("TestRenamed", None)  # keep the process-wide registry as the code defines it
