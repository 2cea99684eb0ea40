"""The fast path: decide whole sessions in memory, then append many carts per transaction.

Each session is folded with the cart's own pure decider (`decide`/`fold`), so
the events are exactly those the command layer would append for the same
commands. Then one transaction per chunk of carts appends every cart's stream
(`eventlog.store.append`, expected version 0: the carts are new) and applies the
inline projections to all of them at once, so `cart_view` stays consistent.

On PostgreSQL the second append of a transaction takes the log's exclusive
append lock until commit (eventlog/migrations/0003), so a bulk run pauses live
commands for one chunk at a time; keep chunks small enough for that.
"""

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from uuid import uuid4

from django.db import connection, transaction

from carts import commands as c
from carts.decider import decide, fold, initial_state
from carts.errors import CartError
from carts.handler import Context, to_log
from carts.streams import stream_id
from eventlog import store
from eventlog.records import NewEvent, RecordedEvent
from kernel.principal import Principal
from projections import cart_view, inline

from .run_commands import Tally
from .shopper import Action, Session

CHUNK = 500  # carts per transaction


class BulkWriter:
    """Decides chunks of sessions here while one writer thread appends the previous chunk.

    Deciding is Python work and appending mostly waits on the database, so the
    two overlap; the single writer keeps the chunks' transactions in order.
    Called inside a transaction (a test's, say), it appends in that transaction
    instead: a thread has a connection of its own and would write outside it.
    """

    def __init__(self, products: Mapping[str, c.ProductSnapshot], chunk: int = CHUNK) -> None:
        self.products = products
        self.chunk = chunk
        self.tally = Tally()
        self._threaded = not connection.in_atomic_block
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="simulate-writer")
        self._pending: Future[Tally] | None = None

    def write(self, sessions: Sequence[Session]) -> None:
        for start in range(0, len(sessions), self.chunk):
            decided = [_decide_session(s, self.products) for s in sessions[start : start + self.chunk]]
            self._collect()
            if self._threaded:
                self._pending = self._writer.submit(_append_chunk, decided)
            else:
                self.tally += _append_chunk(decided)

    def close(self) -> Tally:
        """Wait for the last chunk; returns what every chunk appended."""
        try:
            self._collect()
        finally:
            self._writer.submit(_close_connection).result()
            self._writer.shutdown()
        return self.tally

    def _collect(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self.tally += pending.result()  # re-raises the writer's error here


def _close_connection() -> None:
    connection.close()  # looked up in the writer thread: its own connection, not the caller's


def _append_chunk(decided: list[tuple[str, list[NewEvent], int]]) -> Tally:
    with transaction.atomic():
        cart_view.lock_for_writing()  # before the appends: the order a command takes them in
        recorded: list[RecordedEvent] = []
        for cart_id, events, _ in decided:
            recorded += store.append(stream_id(cart_id), 0, events)
        inline.apply(recorded)
    return Tally(events=len(recorded), rejected=sum(rejected for _, _, rejected in decided))


def _decide_session(session: Session, products: Mapping[str, c.ProductSnapshot]) -> tuple[str, list[NewEvent], int]:
    cart_id = str(uuid4())
    context = Context(actor=session.owner)
    state = initial_state(cart_id)
    logged: list[NewEvent] = []
    rejected = 0
    for action in session.actions:
        command = command_for(cart_id, session.owner, action, products)
        try:
            events = decide(state, command)
        except CartError:
            rejected += 1
            continue
        state = fold(state, events)
        # The handler's own envelope, so both modes log the same metadata.
        logged += to_log(events, command, context, None)
    return cart_id, logged, rejected


def command_for(
    cart_id: str, owner: Principal, action: Action, products: Mapping[str, c.ProductSnapshot]
) -> c.CartCommand:
    at = action.at
    if action.kind == "start":
        return c.StartCart(cart_id=cart_id, at=at, owner=str(owner))
    if action.kind == "add":
        return c.AddToCart(
            cart_id=cart_id, at=at, sku=action.sku, quantity=action.quantity, product=products.get(action.sku)
        )
    if action.kind == "update":
        return c.UpdateCartQuantity(cart_id=cart_id, at=at, sku=action.sku, quantity=action.quantity)
    if action.kind == "remove":
        return c.RemoveFromCart(cart_id=cart_id, at=at, sku=action.sku)
    discount = c.Discount(code=action.coupon[0], percent=action.coupon[1]) if action.coupon else None
    return c.Checkout(cart_id=cart_id, at=at, order_id=str(uuid4()), discount=discount)
