"""The cart's rules as two pure functions: `decide` and `evolve`.

`decide(state, command)` returns the new events or raises a CartError;
`evolve(state, event)` folds one event into the state and never fails. No
Django, no clock, no I/O: everything a decision needs arrives in the command.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from . import commands as c
from . import errors
from . import events as e

MAX_LINE_QUANTITY = 99
MAX_DISTINCT_SKUS = 50
CENT = Decimal("0.01")


class CartStatus(StrEnum):
    """Where a cart is in its life; stored as the value in the cart view."""

    NEW = "new"  # no event yet: the cart does not exist
    OPEN = "open"
    CHECKED_OUT = "checked_out"


@dataclass(frozen=True, kw_only=True)
class Line:
    sku: str
    quantity: int
    unit_price: Decimal

    @property
    def line_total(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass(frozen=True, kw_only=True)
class CartState:
    """A cart as its events made it. `status` NEW means no event yet."""

    cart_id: str
    status: CartStatus = CartStatus.NEW
    owner: str | None = None
    lines: tuple[Line, ...] = ()
    version: int = 0
    order_id: str | None = None
    discount: Decimal = Decimal("0.00")
    coupon: str | None = None

    def line(self, sku: str) -> Line | None:
        for line in self.lines:  # a loop, not next(<generator>): a tenth of a rebuild's time was spent here
            if line.sku == sku:
                return line
        return None

    @property
    def subtotal(self) -> Decimal:
        return sum((line.line_total for line in self.lines), Decimal("0.00"))

    @property
    def total(self) -> Decimal:
        return self.subtotal - self.discount

    @property
    def item_count(self) -> int:
        return sum(line.quantity for line in self.lines)


def initial_state(cart_id: str) -> CartState:
    return CartState(cart_id=cart_id)


# --- decide ---------------------------------------------------------------------


def decide(state: CartState, command: c.CartCommand) -> list[e.CartEvent]:
    """The events `command` leads to on `state`, or a CartError saying why none.

    Only StartCart may act on a cart that does not exist yet; every other command is refused
    here, before its own rule runs, on a cart that does not exist or is checked out. Each of
    those commands has its rule in `_DECISIONS` (a new command without one is a test failure:
    tests/unit/test_decider.py)."""
    if isinstance(command, c.StartCart):
        if state.status is not CartStatus.NEW:
            raise errors.CartAlreadyExistsError(f"Cart {state.cart_id} already exists.")
        return [e.CartStarted(owner=command.owner)]
    if state.status is CartStatus.NEW:
        raise errors.CartNotFoundError("This cart does not exist.")
    if state.status is CartStatus.CHECKED_OUT:
        raise errors.CartCheckedOutError("This cart has already been checked out; it can no longer change.")
    handler = _DECISIONS[type(command)]
    return handler(state, command)


def _add(state: CartState, command: c.AddToCart) -> list[e.CartEvent]:
    _check_quantity(command.quantity, low=1)
    product = command.product
    if product is None:
        raise errors.UnknownProductError(f"There is no product with SKU {command.sku!r}.")
    if not product.active:
        raise errors.InactiveProductError(f"{command.sku} is no longer available.")
    existing = state.line(command.sku)
    if existing is None and len(state.lines) >= MAX_DISTINCT_SKUS:
        raise errors.TooManyLinesError(f"A cart holds at most {MAX_DISTINCT_SKUS} different products.")
    already = existing.quantity if existing else 0
    if already + command.quantity > MAX_LINE_QUANTITY:
        raise errors.InvalidQuantityError(
            f"You already have {already} of {command.sku}; a line holds at most {MAX_LINE_QUANTITY}."
        )
    return [e.ItemAdded(sku=command.sku, quantity=command.quantity, unit_price=product.price)]


def _update(state: CartState, command: c.UpdateCartQuantity) -> list[e.CartEvent]:
    _check_quantity(command.quantity, low=0)
    line = _existing_line(state, command.sku)
    if command.quantity == 0:
        return [e.ItemRemoved(sku=command.sku)]
    if command.quantity == line.quantity:
        return []
    return [e.ItemQuantityChanged(sku=command.sku, from_quantity=line.quantity, to_quantity=command.quantity)]


def _remove(state: CartState, command: c.RemoveFromCart) -> list[e.CartEvent]:
    _existing_line(state, command.sku)
    return [e.ItemRemoved(sku=command.sku)]


def _change_owner(state: CartState, command: c.ChangeCartOwner) -> list[e.CartEvent]:
    if state.owner == command.new_owner:
        return []
    return [e.CartOwnerChanged(from_owner=state.owner or "", to_owner=command.new_owner)]


def _checkout(state: CartState, command: c.Checkout) -> list[e.CartEvent]:
    if not state.lines:
        raise errors.EmptyCartError("Your cart is empty; add something before checking out.")
    if gone := [line.sku for line in state.lines if line.sku in command.withdrawn]:
        one = len(gone) == 1
        raise errors.ProductWithdrawnError(
            f"{', '.join(gone)} {'is' if one else 'are'} no longer sold; "
            f"remove {'it' if one else 'them'} from your cart to check out."
        )
    subtotal = state.subtotal
    discount = Decimal("0.00")
    if command.discount is not None:
        discount = (subtotal * command.discount.percent / 100).quantize(CENT)
    lines = [
        {
            "sku": line.sku,
            "quantity": line.quantity,
            "unit_price": str(line.unit_price),
            "line_total": str(line.line_total),
        }
        for line in state.lines
    ]
    return [
        e.CheckedOut(
            order_id=command.order_id,
            lines=lines,
            subtotal=subtotal,
            discount=discount,
            total=subtotal - discount,
            coupon=command.discount.code if command.discount else None,
            shipping=command.shipping,
        )
    ]


def _check_quantity(quantity: object, *, low: int) -> None:
    if not isinstance(quantity, int) or isinstance(quantity, bool):
        raise errors.InvalidQuantityError("Quantity must be a whole number.")
    if not low <= quantity <= MAX_LINE_QUANTITY:
        raise errors.InvalidQuantityError(f"Quantity must be between {low} and {MAX_LINE_QUANTITY}.")


def _existing_line(state: CartState, sku: str) -> Line:
    line = state.line(sku)
    if line is None:
        raise errors.ItemNotInCartError(f"{sku} is not in this cart.")
    return line


_DECISIONS: dict[type[c.CartCommand], Callable[[CartState, Any], list[e.CartEvent]]] = {
    c.AddToCart: _add,
    c.UpdateCartQuantity: _update,
    c.RemoveFromCart: _remove,
    c.ChangeCartOwner: _change_owner,
    c.Checkout: _checkout,
}


# --- evolve ---------------------------------------------------------------------


def evolve(state: CartState, event: e.CartEvent) -> CartState:
    """Fold one event in. The stream version is the caller's to set (see `fold_recorded`)."""
    match event:
        case e.CartStarted(owner=owner):
            return _replace(state, status=CartStatus.OPEN, owner=owner)
        case e.ItemAdded(sku=sku, quantity=quantity, unit_price=price):
            line = state.line(sku)
            if line is None:
                return _replace(state, lines=(*state.lines, Line(sku=sku, quantity=quantity, unit_price=price)))
            # A line has one price: the one of the shopper's latest add, which the shopper saw
            # on the product page when adding. Keeping the first price charged a shopper for
            # the new units a price the log says they were not added at (docs/events.md).
            return _with_line(state, _replace(line, quantity=line.quantity + quantity, unit_price=price))
        case e.ItemQuantityChanged(sku=sku, to_quantity=quantity):
            line = state.line(sku)
            return _with_line(state, _replace(line, quantity=quantity)) if line else state
        case e.ItemRemoved(sku=sku):
            return _replace(state, lines=tuple(line for line in state.lines if line.sku != sku))
        case e.CartOwnerChanged(to_owner=owner):
            return _replace(state, owner=owner)
        case e.CheckedOut(order_id=order_id, lines=lines, discount=discount, coupon=coupon):
            # The order's lines are final: a checked-out cart shows them as they were ordered,
            # whatever a later version of this fold makes of the events before them.
            return _replace(
                state,
                status=CartStatus.CHECKED_OUT,
                lines=tuple(_ordered_line(line) for line in lines),
                order_id=order_id,
                discount=discount,
                coupon=coupon,
            )
    return state


def fold(state: CartState, events: Iterable[e.CartEvent]) -> CartState:
    for event in events:
        state = _replace(evolve(state, event), version=state.version + 1)
    return state


class StoredEvent(Protocol):
    """What `fold_recorded` reads of a stored event: a `RecordedEvent`, or the leaner
    decoded row a rebuild reads (rebuilds.reader.LogEvent)."""

    @property
    def version(self) -> int: ...

    @property
    def domain_event(self) -> object: ...


def fold_recorded(state: CartState, recorded: Iterable[StoredEvent]) -> CartState:
    """Fold stored events; events of other types on the stream only move the version."""
    last = None
    for last in recorded:
        event = last.domain_event
        if isinstance(event, e.CartEvent):
            state = evolve(state, event)
    # `evolve` never reads the version, so it is set once, from the last event (a
    # rebuild folds millions of events: one copy of the state per event is enough).
    return state if last is None else _replace(state, version=last.version)


def _ordered_line(line: dict[str, Any]) -> Line:
    return Line(sku=line["sku"], quantity=int(line["quantity"]), unit_price=Decimal(str(line["unit_price"])))


def _with_line(state: CartState, new: Line) -> CartState:
    return _replace(state, lines=tuple(new if line.sku == new.sku else line for line in state.lines))


_Value = TypeVar("_Value", CartState, Line)


def _replace(value: _Value, **changes: Any) -> _Value:
    """`dataclasses.replace` for the decider's own values: a new object, the old one untouched.

    A state and a line are frozen dataclasses of plain fields (no __post_init__, no
    slots, no init=False fields), so a copy of the instance dict with the changes
    laid over it is exactly what `replace` builds, without its per-field work: a
    rebuild folds a million events through here (docs/rebuilding.md, speed).
    tests/unit/test_decider.py checks it against `dataclasses.replace`.
    """
    copy = object.__new__(type(value))
    fields = copy.__dict__
    fields.update(value.__dict__)
    fields.update(changes)
    return copy
