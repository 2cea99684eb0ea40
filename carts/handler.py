"""The one path every cart command takes, from the API and from the web shop.

    load the stream -> fold it -> decide -> append (expected version)
                    -> inline projections -> idempotency record -> commit

all in one unit of work of the store (invariant 4). Loading starts from the
cart's newest snapshot, if it has one, and folds only the events after it
(carts/snapshots.py), so a command costs the same at any stream length. A concurrency conflict is
retried from the top with a fresh read, unless the caller pinned a version
(If-Match). What the handler works with (the event store, the idempotency
records, the inline projections) comes from `cartlog.bootstrap`, which installs
the process's handler at start; tests build their own on the in-memory store.
"""

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from eventlog import codec
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores import EventStore
from kernel.principal import Principal

from . import commands as c
from . import errors, snapshots
from .decider import CartState, CartStatus, decide, fold_recorded, initial_state
from .events import CartEvent
from .idempotency import AlreadyRecordedError, ProcessedCommands
from .snapshots import Snapshots
from .streams import stream_id

log = logging.getLogger(__name__)

# The inline projections: given the new events and the states folded just before
# them (cart id -> state), they write their views in the command's transaction.
Project = Callable[[Sequence[RecordedEvent], Mapping[str, CartState]], None]


@dataclass(frozen=True, kw_only=True)
class Context:
    """Who sends a command and how: the actor, the command id, the version pinned."""

    actor: Principal
    idempotency_key: str | None = None
    expected_version: int | None = None
    correlation_id: str | None = None
    causation_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class Outcome:
    state: CartState
    events: list[RecordedEvent] = field(default_factory=list)
    replayed: bool = False  # True: an idempotent repeat, nothing was appended


@dataclass(frozen=True, kw_only=True)
class CommandHandler:
    store: EventStore
    processed: ProcessedCommands
    project: Project
    max_attempts: int  # tries against concurrent writers when no version is pinned
    snapshots: Snapshots | None = None  # None: every load folds the whole stream

    def load(self, cart_id: str, up_to_version: int | None = None) -> CartState:
        """The cart as its stream makes it (optionally as it was at a version: folded from version 1)."""
        if up_to_version is None and self.snapshots is not None:
            snapshot, events = self.snapshots.load(cart_id, self.store)
            return fold_recorded(snapshot or initial_state(cart_id), events)
        return fold_recorded(initial_state(cart_id), self.store.read_stream(stream_id(cart_id), up_to_version))

    def handle(self, command: c.CartCommand, context: Context) -> Outcome:
        attempts = 1 if context.expected_version is not None else self.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                with self.store.atomic():
                    if attempt > 1:
                        # After a conflict, wait in line behind this cart's other writers instead
                        # of racing them again: under contention optimistic retries can starve.
                        self.store.lock_stream(stream_id(command.cart_id))
                    return self._handle_once(command, context)
            except WrongExpectedVersionError:
                if context.expected_version is not None:
                    raise errors.StaleVersionError(
                        "The cart changed since you read it; reload it and try again."
                    ) from None
                log.info("conflict on cart %s, attempt %d of %d", command.cart_id, attempt, attempts)
            except AlreadyRecordedError:
                pass  # a concurrent request with this command id committed first: the next attempt replays it
        raise errors.ConcurrencyConflictError("The cart is being changed by many requests at once; try again.")

    def _handle_once(self, command: c.CartCommand, context: Context) -> Outcome:
        command_id = f"{context.actor}|{context.idempotency_key}" if context.idempotency_key else None
        if command_id and (prior := self.processed.lookup(command_id, command)):
            return Outcome(state=self.load(prior.cart_id, prior.version), replayed=True)
        state = self.load(command.cart_id)
        if not isinstance(command, c.StartCart):
            check_access(state, context.actor)
        if context.expected_version is not None and context.expected_version != state.version:
            raise errors.StaleVersionError(
                f"The cart is at version {state.version}, not {context.expected_version}; reload it and try again."
            )
        new_events = decide(state, command)
        recorded = self.store.append(
            stream_id(command.cart_id), state.version, to_log(new_events, command, context, command_id)
        )
        self.project(recorded, {command.cart_id: state})
        new_state = fold_recorded(state, recorded)
        if self.snapshots is not None and snapshots.due(state.version, new_state.version):
            self.snapshots.save(new_state)
        if command_id:
            self.processed.record(command_id, command, new_state.version)
        return Outcome(state=new_state, events=recorded)


def check_access(state: CartState, actor: Principal) -> None:
    # Someone else's cart is answered exactly like a missing one: no existence leak.
    if state.status is CartStatus.NEW or state.owner != str(actor):
        raise errors.CartNotFoundError("This cart does not exist.")


def to_log(events: list[CartEvent], command: c.CartCommand, context: Context, command_id: str | None) -> list[NewEvent]:
    """The records to append for a command's events: the envelope metadata (who, which
    command, correlation) and the command's time. The bulk simulator appends the same."""
    metadata = codec.command_metadata(
        command,
        actor=str(context.actor),
        command_id=command_id,
        correlation_id=context.correlation_id,
        causation_id=context.causation_id,
    )
    return [codec.to_new_event(event, metadata=metadata, occurred_at=command.at) for event in events]


# --- the process's handler, installed by cartlog.bootstrap --------------------

_installed: list[CommandHandler] = []


def install(handler: CommandHandler) -> None:
    _installed[:] = [handler]


def installed() -> CommandHandler:
    if not _installed:
        raise RuntimeError("no cart command handler: cartlog.bootstrap.start() has not run")
    return _installed[0]


def handle(command: c.CartCommand, context: Context) -> Outcome:
    return installed().handle(command, context)


def load(cart_id: str, up_to_version: int | None = None) -> CartState:
    return installed().load(cart_id, up_to_version)
