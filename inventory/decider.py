"""A product's stock rules: `decide(state, command) -> events`, `evolve(state, event) -> state`.

Pure (no Django, no clock, no I/O). No oversell is a property of the stream: a
reservation is decided against the stream folded to its version and appended with
that version expected, so of two checkouts racing for the last units one append
fails, decides again on the fresh state and is refused (`inventory/handler.py`).
Commands about a reservation are idempotent: releasing or confirming one twice,
or reserving again under the same id, appends nothing the second time.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import MappingProxyType

from eventlog.records import RecordedEvent

from . import commands as c
from . import events as e
from .errors import InvalidStockError, OutOfStockError, ReservationLostError


@dataclass(frozen=True, kw_only=True)
class Held:
    """One open reservation."""

    quantity: int
    expires_at: datetime


@dataclass(frozen=True, kw_only=True)
class StockState:
    sku: str
    tracked: bool = False  # False: no stock event yet; the product sells without limit
    on_hand: int = 0
    held: Mapping[str, Held] = field(default_factory=lambda: MappingProxyType({}))  # reservation -> units
    version: int = 0  # the stream version this state reflects

    @property
    def reserved(self) -> int:
        return sum(h.quantity for h in self.held.values())

    @property
    def available(self) -> int:
        return self.on_hand - self.reserved


def initial_state(sku: str) -> StockState:
    return StockState(sku=sku)


def decide(state: StockState, command: c.StockCommand) -> list[e.StockEvent]:
    sku = command.sku
    match command:
        case c.ReceiveStock(quantity=quantity):
            if quantity <= 0:
                raise InvalidStockError("Receive a positive number of units.", field="quantity")
            return [e.StockReceived(sku=sku, quantity=quantity)]
        case c.AdjustStock(by=by, reason=reason):
            return _adjust(state, by, reason)
        case c.Reserve(reservation=reservation, quantity=quantity, expires_at=expires_at):
            return _reserve(state, reservation, quantity, expires_at)
        case c.Release(reservation=reservation, reason=reason):
            held = state.held.get(reservation)
            if held is None:
                return []  # released or confirmed already: nothing is given back twice
            return [e.ReservationReleased(sku=sku, reservation=reservation, quantity=held.quantity, reason=reason)]
        case c.Confirm(reservation=reservation, order_id=order_id):
            held = state.held.get(reservation)
            if held is None:
                raise ReservationLostError(
                    f"The units of {sku} set aside for this checkout were released before the order was placed; "
                    "check out again."
                )
            return [e.ReservationConfirmed(sku=sku, reservation=reservation, quantity=held.quantity, order_id=order_id)]
        case c.ReleaseExpired(at=now):
            return [
                e.ReservationReleased(sku=sku, reservation=r, quantity=h.quantity, reason="expired")
                for r, h in sorted(state.held.items())
                if h.expires_at <= now
            ]
    raise TypeError(f"not a stock command: {command!r}")


def _adjust(state: StockState, by: int, reason: str) -> list[e.StockEvent]:
    if by == 0:
        raise InvalidStockError("An adjustment changes the units on hand by a non-zero number.", field="by")
    if not reason.strip():
        raise InvalidStockError("An adjustment says why (a count, breakage).", field="reason")
    if state.on_hand + by < state.reserved:
        raise InvalidStockError(
            f"{state.sku} has {state.on_hand} on hand and {state.reserved} reserved: it cannot go down by {-by}.",
            field="by",
        )
    return [e.StockAdjusted(sku=state.sku, by=by, reason=reason)]


def _reserve(state: StockState, reservation: str, quantity: int, expires_at: datetime) -> list[e.StockEvent]:
    if quantity <= 0:
        raise InvalidStockError("Reserve a positive number of units.", field="quantity")
    if (held := state.held.get(reservation)) is not None and held.quantity == quantity:
        return []  # a retry of the same reservation
    if quantity > state.available:
        raise OutOfStockError(
            f"Only {max(state.available, 0)} of {state.sku} left; your cart asks for {quantity}.",
            sku=state.sku,
            available=max(state.available, 0),
        )
    return [e.StockReserved(sku=state.sku, reservation=reservation, quantity=quantity, expires_at=expires_at)]


def evolve(state: StockState, event: e.StockEvent) -> StockState:
    match event:
        case e.StockReceived(quantity=quantity):
            return replace(state, tracked=True, on_hand=state.on_hand + quantity)
        case e.StockAdjusted(by=by):
            return replace(state, tracked=True, on_hand=state.on_hand + by)
        case e.StockReserved(reservation=reservation, quantity=quantity, expires_at=expires_at):
            held = {**state.held, reservation: Held(quantity=quantity, expires_at=expires_at)}
            return replace(state, tracked=True, held=MappingProxyType(held))
        case e.ReservationReleased(reservation=reservation):
            return replace(state, held=_without(state.held, reservation))
        case e.ReservationConfirmed(reservation=reservation, quantity=quantity):
            return replace(state, on_hand=state.on_hand - quantity, held=_without(state.held, reservation))
    return state


def _without(held: Mapping[str, Held], reservation: str) -> Mapping[str, Held]:
    return MappingProxyType({r: h for r, h in held.items() if r != reservation})


def fold(state: StockState, events: Iterable[e.StockEvent]) -> StockState:
    for event in events:
        state = evolve(state, event)
    return state


def fold_recorded(state: StockState, records: Iterable[RecordedEvent]) -> StockState:
    """Fold events as the log returns them; the state takes the last one's version."""
    for record in records:
        event = record.domain_event
        if isinstance(event, e.StockEvent):
            state = evolve(state, event)
        state = replace(state, version=record.version)
    return state
