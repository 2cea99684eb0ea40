"""The one path every stock command takes (staff, the seed, checkouts, the sweep):

    load stock-<sku> -> fold -> decide -> append (expected version) -> stock_levels

in one unit of work of the store. A conflict means another command appended to
the same stream since the read: decide again on a fresh read (after the first
conflict, in line behind the stream's other writers). That retry is what makes
overselling impossible: the last units are decided on, once each, in stream order.
The store and the inline projection are handed in by `cartlog.bootstrap`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from eventlog import codec
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores import EventStore
from kernel.errors import ConflictError, InvalidInputError

from . import commands as c
from .decider import StockState, decide, fold_recorded, initial_state
from .events import StockEvent
from .streams import stream_id

Project = Callable[[Sequence[RecordedEvent]], None]


class StockConflictError(ConflictError):
    title = "Stock changed concurrently"


class UnknownProductError(InvalidInputError):
    title = "Unknown product"
    field = "sku"


@dataclass(frozen=True, kw_only=True)
class Outcome:
    state: StockState
    events: list[RecordedEvent] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class StockHandler:
    store: EventStore
    project: Project
    # Whether a SKU is a product. The catalog is a sibling package, so the composition root hands
    # this in (cartlog/bootstrap.py). Staff's receipts and corrections are checked: a typo made a
    # stream of its own (stock-tea-003, stock-) in a log nothing can take back.
    is_product: Callable[[str], bool] = lambda sku: True
    max_attempts: int = 20  # checkouts race for popular products: each conflict decides again, in line

    def load(self, sku: str) -> StockState:
        return fold_recorded(initial_state(sku), self.store.read_stream(stream_id(sku)))

    def handle(self, command: c.StockCommand, *, actor: str, causation_id: str | None = None) -> Outcome:
        if isinstance(command, c.ReceiveStock | c.AdjustStock) and not self.is_product(command.sku):
            raise UnknownProductError(f"There is no product with SKU {command.sku!r}; nothing was recorded.")
        for attempt in range(1, self.max_attempts + 1):
            try:
                with self.store.atomic():
                    if attempt > 1:
                        self.store.lock_stream(stream_id(command.sku))
                    return self._handle_once(command, actor, causation_id)
            except WrongExpectedVersionError:
                continue
        raise StockConflictError(f"The stock of {command.sku} is being changed by many at once; try again.")

    def _handle_once(self, command: c.StockCommand, actor: str, causation_id: str | None) -> Outcome:
        state = self.load(command.sku)
        new_events = decide(state, command)
        if not new_events:
            return Outcome(state=state)
        records = to_log(new_events, command, actor, causation_id)
        recorded = self.store.append(stream_id(command.sku), state.version, records)
        self.project(recorded)
        return Outcome(state=fold_recorded(state, recorded), events=recorded)


def to_log(events: list[StockEvent], command: c.StockCommand, actor: str, causation_id: str | None) -> list[NewEvent]:
    metadata = codec.command_metadata(command, actor=actor, causation_id=causation_id)
    return [codec.to_new_event(event, metadata=metadata, occurred_at=command.at) for event in events]


# --- the process's handler, installed by cartlog.bootstrap --------------------

_installed: list[StockHandler] = []


def install(handler: StockHandler) -> None:
    _installed[:] = [handler]


def installed() -> StockHandler:
    if not _installed:
        raise RuntimeError("no stock command handler: cartlog.bootstrap.start() has not run")
    return _installed[0]
