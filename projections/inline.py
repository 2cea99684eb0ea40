"""Inline projections: applied in the command's transaction, right after its append."""

from collections.abc import Sequence

from eventlog.records import RecordedEvent

from . import registry


def apply(events: Sequence[RecordedEvent]) -> None:
    for projection in registry.inline():
        projection.apply(events)
