"""Inline projections: applied in the command's transaction, right after its append."""

import inspect
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from eventlog.records import RecordedEvent

from . import registry


def apply(events: Sequence[RecordedEvent], *, prior: Mapping[str, Any] | None = None) -> None:
    """`prior`: states the command handler already folded from the stream, keyed by
    the projection's key (a cart id). A projection whose `apply` takes `prior`
    uses them instead of reading its own rows back; the others never see them."""
    for projection in registry.inline():
        if prior is not None and _takes_prior(projection.apply):
            projection.apply(events, prior=prior)
        else:
            projection.apply(events)


@cache
def _takes_prior(apply: Callable[..., None]) -> bool:
    return "prior" in inspect.signature(apply).parameters
