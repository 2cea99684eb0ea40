"""`manage.py consumers_healthy`: the healthcheck of every consumer (both backends)."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from consumers import registry
from consumers.models import Heartbeat

pytestmark = pytest.mark.django_db


def beat(name: str, seconds_ago: float = 0.0) -> None:
    at = timezone.now() - timedelta(seconds=seconds_ago)
    Heartbeat.objects.update_or_create(name=name, defaults={"transport": "table", "beat_at": at, "pid": 1})


def test_healthy_only_when_every_registered_consumer_beat_recently() -> None:
    names = [consumer.name for consumer in registry.all_consumers()]
    assert len(names) >= 5
    for name in names:
        beat(name)
    call_command("consumers_healthy")
    beat(names[-1], seconds_ago=60)  # one thread died or hangs
    with pytest.raises(CommandError, match=names[-1]):
        call_command("consumers_healthy")


def test_only_checks_the_named_ones_such_as_the_relay() -> None:
    with pytest.raises(CommandError, match="relay"):
        call_command("consumers_healthy", "--only", "relay")
    beat("relay")
    call_command("consumers_healthy", "--only", "relay")


def test_an_unknown_name_is_said_to_be_unknown_not_silent() -> None:
    # It said "no heartbeat in the last 30s from: nonesuch", as if a consumer had died.
    with pytest.raises(CommandError, match=r"unknown consumer\(s\): nonesuch \(known: .*relay\)"):
        call_command("consumers_healthy", "--only", "nonesuch")
