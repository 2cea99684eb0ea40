"""The one path every catalog command takes (admin, seed, services):

    load product-<sku> -> fold -> decide -> append (expected version) -> inline projections

in one unit of work of the store, so the product table and the search index
change in the transaction that records why. The store and the projections are
handed in by `cartlog.bootstrap` (this layer sits below projections).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from eventlog import codec
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores import EventStore
from kernel.errors import ConflictError

from . import commands as c
from .decider import ProductState, decide, fold_recorded, initial_state
from .events import ProductEvent
from .streams import stream_id

Project = Callable[[Sequence[RecordedEvent]], None]


class CatalogConflictError(ConflictError):
    title = "Product changed concurrently"


@dataclass(frozen=True, kw_only=True)
class Outcome:
    state: ProductState
    events: list[RecordedEvent] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class CatalogHandler:
    store: EventStore
    project: Project
    max_attempts: int = 5  # staff edits rarely race; a conflict just means "decide again on a fresh read"

    def load(self, sku: str) -> ProductState:
        return fold_recorded(initial_state(sku), self.store.read_stream(stream_id(sku)))

    def handle(self, command: c.ProductCommand, *, actor: str) -> Outcome:
        for attempt in range(1, self.max_attempts + 1):
            try:
                with self.store.atomic():
                    if attempt > 1:  # after a conflict, queue behind the product's other writers (as carts do)
                        self.store.lock_stream(stream_id(command.sku))
                    return self._handle_once(command, actor)
            except WrongExpectedVersionError:
                continue
        raise CatalogConflictError(f"{command.sku} is being changed by others at once; try again.")

    def _handle_once(self, command: c.ProductCommand, actor: str) -> Outcome:
        state = self.load(command.sku)
        new_events = decide(state, command)
        if not new_events:
            return Outcome(state=state)
        recorded = self.store.append(stream_id(command.sku), state.version, to_log(new_events, command, actor))
        self.project(recorded)
        return Outcome(state=fold_recorded(state, recorded), events=recorded)


def to_log(events: list[ProductEvent], command: c.ProductCommand, actor: str) -> list[NewEvent]:
    metadata = codec.command_metadata(command, actor=actor)
    return [codec.to_new_event(event, metadata=metadata, occurred_at=command.at) for event in events]


# --- the process's handler, installed by cartlog.bootstrap --------------------

_installed: list[CatalogHandler] = []


def install(handler: CatalogHandler) -> None:
    _installed[:] = [handler]


def installed() -> CatalogHandler:
    if not _installed:
        raise RuntimeError("no catalog command handler: cartlog.bootstrap.start() has not run")
    return _installed[0]
