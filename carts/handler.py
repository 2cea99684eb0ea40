"""The one path every cart command takes, from the API and from the web shop.

    read:  the cart's newest snapshot and the events after it (one statement),
           unless this process wrote the cart last and remembers it (last_written)
    fold -> decide -> fold the new events in
    write: append (expected version) + the inline view's row + a snapshot every
           EVERY versions + the idempotency record: ONE statement (eventlog.alongside)

The write is all or nothing (invariant 4), and it is a transaction of its own: on
PostgreSQL a command costs two round trips, with no BEGIN or COMMIT around them,
and one when its process wrote the cart last: it is decided against the state it
remembers, and the append's expected version proves that guess (`_first_try`). A
StartCart is decided against the empty stream its append expects (`starts_unread`).
A wrong guess costs no more than a read: the failed append returns the events it
missed (`catch_up`), and the command is decided again with them folded in.
The read needs no transaction: if the cart changed since it ran, the append's
expected version no longer holds and nothing is written. An Idempotency-Key costs
nothing more unless the command fails: its record is written with the append,
whose statement then fails if the key is taken, and only then is the first
outcome looked up and returned (`handle`). Loading folds from the
newest snapshot (carts/snapshots.py), so a command costs the same at any stream
length. A concurrency conflict is retried with a fresh read, unless the caller
pinned a version (If-Match); a retry runs in a transaction that first waits in
line behind the cart's other writers. What the handler works with (the event store,
the idempotency records, the snapshots, the inline view) comes from `cartlog.bootstrap`,
which installs the process's handler at start; tests build their own on the
in-memory store.
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from eventlog import codec
from eventlog.alongside import Row
from eventlog.errors import RowConflictError, WrongExpectedVersionError
from eventlog.records import NewEvent, RecordedEvent
from eventlog.stores import EventStore
from kernel.errors import DomainError
from kernel.principal import Principal

from . import commands as c
from . import errors, snapshots
from .decider import CartState, CartStatus, decide, fold, fold_recorded, initial_state
from .events import CartEvent
from .idempotency import ProcessedCommands
from .last_written import LastWritten
from .snapshots import Snapshots
from .streams import stream_id

log = logging.getLogger(__name__)

# The inline projections: given the cart's state after a command and the command's
# events, the rows of their views, written with the append in its statement.
Project = Callable[[CartState, Sequence[NewEvent]], Sequence[Row]]


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
    last_written: LastWritten | None = None  # None: every command reads its cart first

    def load(self, cart_id: str, up_to_version: int | None = None) -> CartState:
        """The cart as its stream makes it (optionally as it was at a version: folded from version 1)."""
        if up_to_version is None and self.snapshots is not None:
            snapshot, events = self.snapshots.load(cart_id, self.store)
            return fold_recorded(snapshot or initial_state(cart_id), events)
        return fold_recorded(initial_state(cart_id), self.store.read_stream(stream_id(cart_id), up_to_version))

    def handle(self, command: c.CartCommand, context: Context) -> Outcome:
        command_id = _command_id(context)
        failure: Exception | None = None
        try:
            outcome = self._with_retries(command, context, command_id)
            if outcome.events or command_id is None:
                return outcome
        except (DomainError, RowConflictError) as refused:
            if command_id is None:
                raise
            failure = refused
        # Idempotency (invariant 5), looked up only when the command did not go through: its
        # write found the key taken, or deciding it again refused it (a checkout sent twice) or
        # changed nothing (a quantity set twice). A first send that committed returns its outcome.
        if replayed := self.replay(command, context):
            return replayed
        if failure is None:
            # It changed nothing, and no append carried its key: recorded now, a retry sent after
            # another write (a second device set the quantity) answers with this outcome instead of
            # being decided again and undoing that write.
            recorded = self.processed.record(command_id, command, outcome.state.version)
            return outcome if recorded else self.replay(command, context) or outcome
        if isinstance(failure, RowConflictError):
            raise errors.ConcurrencyConflictError("The same request is being sent at once; try again.") from failure
        raise failure

    def replay(self, command: c.CartCommand, context: Context) -> Outcome | None:
        """The first outcome of `command` if it was sent before with this Idempotency-Key (nothing
        appended); None if it was not; IdempotencyKeyReusedError if the key went with another request."""
        command_id = _command_id(context)
        prior = self.processed.lookup(command_id, command) if command_id else None
        return None if prior is None else Outcome(state=self.load(prior.cart_id, prior.version), replayed=True)

    def _with_retries(self, command: c.CartCommand, context: Context, command_id: str | None) -> Outcome:
        attempts = 1 if context.expected_version is not None else self.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                if attempt == 1 and not self.store.in_transaction():
                    # The one write is a transaction of its own: no BEGIN, no COMMIT.
                    return self._first_try(command, context, command_id)
                # A retry's lock on the stream lasts a transaction; inside a caller's transaction,
                # a savepoint (a nested atomic) keeps it usable after a conflict.
                with self.store.atomic():
                    if attempt > 1:
                        # After a conflict, wait in line behind this cart's other writers instead
                        # of racing them again: under contention optimistic retries can starve.
                        self.store.lock_stream(stream_id(command.cart_id))
                    return self._handle_once(command, context, command_id)
            except WrongExpectedVersionError:
                if context.expected_version is not None:
                    # Another writer appended between this command's read and its append: the
                    # refusal names the version it left, read now (a failure's cost, not a command's).
                    current = self.load(command.cart_id).version
                    raise errors.StaleVersionError(current=current, expected=context.expected_version) from None
                log.info("conflict on cart %s, attempt %d of %d", command.cart_id, attempt, attempts)
        raise errors.ConcurrencyConflictError("The cart is being changed by many requests at once; try again.")

    def _first_try(self, command: c.CartCommand, context: Context, command_id: str | None) -> Outcome:
        """A command's first attempt, outside a transaction: one statement when the guess holds.

        The guess is the cart as this process last wrote it, or for a StartCart the empty
        stream its append expects; without one, the cart is read (proven). The append
        proves a guess; a stale one fails and brings back the events it missed, folded
        in to decide again (once: another conflict goes on to the locked retries). A
        refusal or a no-op proves nothing (nothing is appended), so on a guess the cart is
        read and the command decided again. Each `continue` turns a one-way flag, so
        this runs at most three times.
        """
        cart_id, pinned = command.cart_id, context.expected_version is not None
        state = self._guess(command, context)
        proven = state is None
        if state is None:
            state = self.load(cart_id)
        caught_up = False
        while True:
            try:
                outcome = self._decide_against(state, command, context, command_id, catch_up=0 if pinned else CATCH_UP)
            except DomainError:
                if proven:
                    raise
                state, proven = self.load(cart_id), True
                continue
            except WrongExpectedVersionError as behind:
                ahead = None if pinned or caught_up else fold_missed(state, behind.missed)
                if ahead is None:
                    if self.last_written is not None:
                        self.last_written.forget(cart_id)  # it may be wrong in a way the append cannot fix (a restore)
                    raise
                state, proven, caught_up = ahead, True, True
                continue
            if not outcome.events and not proven:
                state, proven = self.load(cart_id), True
                continue
            if self.last_written is not None:
                self.last_written.remember(outcome.state)  # committed: the statement was its own transaction
            return outcome

    def _guess(self, command: c.CartCommand, context: Context) -> CartState | None:
        if starts_unread(command, context):
            return initial_state(command.cart_id)
        if self.last_written is None:
            return None
        remembered = self.last_written.get(command.cart_id)
        pinned = context.expected_version
        if pinned is not None and (remembered is None or remembered.version != pinned):
            return None  # a pinned version this process did not write last is checked against what the log holds
        # Pinned to the version this process wrote last (a client's If-Match, every checkout): the append
        # checks that version, so the guess is as good as a read, and the read is saved.
        return remembered

    def _handle_once(self, command: c.CartCommand, context: Context, command_id: str | None) -> Outcome:
        return self._decide_against(self.load(command.cart_id), command, context, command_id)

    def _decide_against(
        self, state: CartState, command: c.CartCommand, context: Context, command_id: str | None, catch_up: int = 0
    ) -> Outcome:
        if not isinstance(command, c.StartCart):
            check_access(state, context.actor)
        check_expected_version(state, context)
        return self._decide_and_append(state, command, context, command_id, catch_up)

    def _decide_and_append(
        self, state: CartState, command: c.CartCommand, context: Context, command_id: str | None, catch_up: int = 0
    ) -> Outcome:
        new_events = decide(state, command)
        if not new_events:
            # Nothing changes (a quantity set to what it is): nothing is appended, so no record goes with an
            # append (`handle` looks for one a first send may have written, and records a keyed one on its own).
            return Outcome(state=state)
        new_state = fold(state, new_events)
        to_append = to_log(new_events, command, context, command_id)
        alongside = [*self.project(new_state, to_append)]
        if self.snapshots is not None and snapshots.due(state.version, new_state.version):
            alongside.append(self.snapshots.row(new_state))
        if command_id:
            alongside.append(self.processed.row(command_id, command))  # its key taken: RowConflictError
        recorded = self.store.append(
            stream_id(command.cart_id), state.version, to_append, alongside=alongside, catch_up=catch_up
        )
        return Outcome(state=new_state, events=recorded)


# A guess this far behind (or more) is not caught up from a failed append: the cart is read
# from its snapshot instead, which folds no more events than this.
CATCH_UP = snapshots.EVERY


def fold_missed(state: CartState, missed: Sequence[RecordedEvent] | None) -> CartState | None:
    """`state` with the events its failed append missed folded in; None if they are not
    known, do not follow it, or may not be all of them (a full batch)."""
    if not missed or len(missed) >= CATCH_UP or missed[0].version != state.version + 1:
        return None
    return fold_recorded(state, missed)


def starts_unread(command: c.CartCommand, context: Context) -> bool:
    """Whether a command is first decided against an empty stream, without reading it.

    A StartCart needs its cart to have no events, and its append says so itself: it expects
    version 0, and fails if the stream has any event. So its read would only ever find the
    empty stream it is decided against, and is skipped; if the cart does exist, the append
    writes nothing and the command is decided again against what is there (the refusal a read
    would have given). Not with a pinned version (If-Match), whose failed append means "stale".
    """
    return isinstance(command, c.StartCart) and context.expected_version is None


def _command_id(context: Context) -> str | None:
    # A key is the caller's own: two callers may choose the same one.
    return f"{context.actor}|{context.idempotency_key}" if context.idempotency_key else None


def check_access(state: CartState, actor: Principal) -> None:
    # Someone else's cart is answered exactly like a missing one: no existence leak.
    if state.status is CartStatus.NEW or state.owner != str(actor):
        raise errors.CartNotFoundError("This cart does not exist.")


def check_expected_version(state: CartState, context: Context) -> None:
    """If-Match: the version the caller pinned must be the cart's (412 otherwise)."""
    if context.expected_version is not None and context.expected_version != state.version:
        raise errors.StaleVersionError(current=state.version, expected=context.expected_version)


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


def replay(command: c.CartCommand, context: Context) -> Outcome | None:
    return installed().replay(command, context)
