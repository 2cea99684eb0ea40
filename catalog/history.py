"""A product as the log says it was at a position: its stream folded up to there.

Never the product table (that is today). The cart history asks which prices
came before an `ItemAdded`; the stream-table join (`projections/category_activity.py`)
asks a product's category at a cart event's position. Events before a position
the reader got from a gap-safe read are all committed, so the answer is final.
"""

from dataclasses import dataclass, field

from eventlog import store
from eventlog.records import RecordedEvent

from .decider import ProductState, fold_recorded, initial_state
from .streams import stream_id

PRICE_EVENTS = ("ProductListed", "PriceChanged")


def events_before(sku: str, position: int, *, using: str = "default") -> list[RecordedEvent]:
    return [event for event in store.read_stream(stream_id(sku), using=using) if event.position < position]


def product_at(sku: str, position: int, *, using: str = "default") -> ProductState:
    """The product as it was just before log position `position` (not listed yet: `listed` False)."""
    return fold_recorded(initial_state(sku), events_before(sku, position, using=using))


def prices_before(sku: str, position: int, *, using: str = "default") -> list[RecordedEvent]:
    """The product's listing and every price change before `position`, oldest first."""
    return [event for event in events_before(sku, position, using=using) if event.type in PRICE_EVENTS]


@dataclass
class Timelines:
    """Product streams read once per reader and folded to any position: for a batch of cart events."""

    using: str = "default"
    _streams: dict[str, list[RecordedEvent]] = field(default_factory=dict)

    def product_at(self, sku: str, position: int) -> ProductState:
        if sku not in self._streams:
            self._streams[sku] = store.read_stream(stream_id(sku), using=self.using)
        before = [event for event in self._streams[sku] if event.position < position]
        return fold_recorded(initial_state(sku), before)
