"""Inline projections: applied in the command's transaction, right after its append."""

from collections.abc import Mapping, Sequence
from typing import Any

from eventlog.records import RecordedEvent

from . import registry


def apply(events: Sequence[RecordedEvent], *, prior: Mapping[str, Any] | None = None) -> None:
    """`prior`: states the command handler already folded from the stream, keyed by
    the projection's key (a cart id), so the projection need not read its rows back.
    Each projection gets only the events of its own stream categories (a cart
    command's events never reach the product table, nor a product's the cart view)."""
    for projection in registry.inline():
        if mine := [event for event in events if event.category in projection.CATEGORIES]:
            projection.apply(mine, prior=prior)
