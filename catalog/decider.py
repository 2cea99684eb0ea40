"""A product's rules: `decide(state, command) -> events`, `evolve(state, event) -> state`.

Pure (no Django, no clock, no I/O). A product is either not listed yet or
listed; what it is at any log position is its stream folded up to there
(`catalog/history.py`), which the cart history and the stream-table join use.
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from eventlog.records import RecordedEvent

from . import commands as c
from . import events as e
from .errors import InvalidProductError, ProductAlreadyListedError, ProductNotFoundError

CENT = Decimal("0.01")


@dataclass(frozen=True, kw_only=True)
class ProductState:
    sku: str
    listed: bool = False
    name: str = ""
    description: str = ""
    category: str = ""
    price: Decimal = Decimal("0.00")
    active: bool = False
    version: int = 0  # the stream version this state reflects


def initial_state(sku: str) -> ProductState:
    return ProductState(sku=sku)


def decide(state: ProductState, command: c.ProductCommand) -> list[e.ProductEvent]:
    if isinstance(command, c.ListProduct):
        return _list(state, command)
    return _edit(state, command)


def _list(state: ProductState, command: c.ListProduct) -> list[e.ProductEvent]:
    if state.listed:
        raise ProductAlreadyListedError(f"{command.sku} is already in the catalog; edit it instead.", field="sku")
    _check_text(command.name, "name")
    _check_text(command.category, "category")
    listed = e.ProductListed(
        sku=command.sku,
        name=command.name,
        description=command.description,
        category=command.category,
        price=_checked_price(command.price),
    )
    return [listed] if command.active else [listed, e.ProductWithdrawn(sku=command.sku)]


def _edit(state: ProductState, command: c.EditProduct) -> list[e.ProductEvent]:
    if not state.listed:
        raise ProductNotFoundError(
            f"There is no product with SKU {command.sku!r} on the log (a product from before the catalog was a "
            "log is put there by `python manage.py list_existing_products`)."
        )
    sku, changes = command.sku, list[e.ProductEvent]()
    name = state.name if command.name is None else _check_text(command.name, "name")
    description = state.description if command.description is None else command.description
    if (name, description) != (state.name, state.description):
        changes.append(e.ProductDescribed(sku=sku, name=name, description=description))
    if command.category is not None and _check_text(command.category, "category") != state.category:
        changes.append(e.ProductRecategorized(sku=sku, from_category=state.category, to_category=command.category))
    if command.price is not None and _checked_price(command.price) != state.price:
        changes.append(e.PriceChanged(sku=sku, from_price=state.price, to_price=_checked_price(command.price)))
    if command.active is not None and command.active != state.active:
        changes.append(e.ProductRelisted(sku=sku) if command.active else e.ProductWithdrawn(sku=sku))
    return changes


def _check_text(value: str, field: str) -> str:
    if not value.strip():
        raise InvalidProductError(f"A product needs a {field}.", field=field)
    return value


def _checked_price(price: Decimal) -> Decimal:
    if not price.is_finite() or price <= 0 or price != price.quantize(CENT):
        raise InvalidProductError("A price is a positive amount in cents, such as 12.50.", field="price")
    return price.quantize(CENT)


def evolve(state: ProductState, event: e.ProductEvent) -> ProductState:
    match event:
        case e.ProductListed(name=name, description=description, category=category, price=price):
            return replace(
                state, listed=True, name=name, description=description, category=category, price=price, active=True
            )
        case e.ProductDescribed(name=name, description=description):
            return replace(state, name=name, description=description)
        case e.ProductRecategorized(to_category=category):
            return replace(state, category=category)
        case e.PriceChanged(to_price=price):
            return replace(state, price=price)
        case e.ProductWithdrawn():
            return replace(state, active=False)
        case e.ProductRelisted():
            return replace(state, active=True)
    return state


def fold(state: ProductState, events: Iterable[e.ProductEvent]) -> ProductState:
    for event in events:
        state = evolve(state, event)
    return state


def fold_recorded(state: ProductState, records: Iterable[RecordedEvent]) -> ProductState:
    """Fold events as the log returns them; the state takes the last one's version."""
    for record in records:
        event = record.domain_event
        if isinstance(event, e.ProductEvent):
            state = evolve(state, event)
        state = replace(state, version=record.version)
    return state
