"""Every projection by name, with its lifecycle: the one list the runner and rebuilds use.

A projection is a module that satisfies `Projection`:

- NAME: stable name ("cart_view"); VERSION: bumped when its code changes its rows;
- TABLE: the one live table it writes; KEY: that table's primary-key column;
- CATEGORIES: the stream categories it reads ("cart", "claim");
- apply(events, table=TABLE, *, using="default"): fold events into `table`.

`apply` must be deterministic (no clock, no randomness: times come from the
events) and work on an empty table of any name with the live table's schema,
because a rebuild runs the very same function into a shadow table.

Lifecycles:
- INLINE: written in the command's own transaction, with its append (a cart command's
  `cart_view` row in the append's very statement: `cart_view.row`, eventlog/alongside.py);
- ASYNC: run by a consumer (`run_consumers`), its rows committed with its checkpoint;
- CONSUMER_STATE: the private state of a consumer that writes it itself, in step
  with its own decisions (the claim validator); listed so it can be verified and rebuilt.
"""

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol

from catalog import projection as products
from catalog import search_index as product_search
from claims import projection as claims
from claims import validator as claim_validator
from eventlog.records import RecordedEvent
from inventory import projection as stock_levels

from . import abandoned_carts, cart_view, category_activity, order_history, product_activity


class Lifecycle(StrEnum):
    INLINE = "inline"
    ASYNC = "async"
    CONSUMER_STATE = "consumer state"


class Projection(Protocol):
    NAME: str
    VERSION: int
    TABLE: str
    KEY: str
    CATEGORIES: tuple[str, ...]

    def apply(self, events: Sequence[RecordedEvent], table: str = ..., *, using: str = ...) -> None: ...


INLINE: list[Projection] = [cart_view, products, product_search, stock_levels]
ASYNC: list[Projection] = [
    product_activity,
    order_history,
    category_activity,
    abandoned_carts,
]  # in the order operators see them
CONSUMER_STATE: list[Projection] = [claims]
# Who keeps each of those: a consumer of another name (its rebuilds show on that consumer's row).
KEPT_BY = {claims.NAME: claim_validator.NAME}


def inline() -> list[Projection]:
    return list(INLINE)


def written_in_the_append(projection: Projection) -> bool:
    """Whether commands write this view's rows in their append's own statement (eventlog/alongside.py).

    Such a statement locks the view's table when it starts, before the append in it
    can wait for held appends; whoever holds appends and then locks the table (a
    rebuild's swap) must lock the table first, or each would wait for the other."""
    return projection.NAME == cart_view.NAME


def asynchronous() -> list[Projection]:
    return list(ASYNC)


def consumer_state() -> list[Projection]:
    return list(CONSUMER_STATE)


def keeper(projection: Projection) -> str:
    """The consumer whose records say what this projection's live table holds (its own name,
    but for a consumer's state: `claim_validator` keeps `claims`)."""
    return KEPT_BY.get(projection.NAME, projection.NAME)


def kept_by(consumer: str) -> str | None:
    """The projection a consumer keeps as its own state (`claims` for `claim_validator`), if any."""
    return next((name for name, keeper in KEPT_BY.items() if keeper == consumer), None)


def all_projections() -> list[Projection]:
    return [*inline(), *asynchronous(), *consumer_state()]


def lifecycle(projection: Projection) -> Lifecycle:
    if projection.NAME in {p.NAME for p in INLINE}:
        return Lifecycle.INLINE
    if projection.NAME in {p.NAME for p in ASYNC}:
        return Lifecycle.ASYNC
    return Lifecycle.CONSUMER_STATE


def get(name: str) -> Projection:
    for projection in all_projections():
        if name == projection.NAME:
            return projection
    known = ", ".join(p.NAME for p in all_projections())
    raise KeyError(f"unknown projection {name!r}; known: {known}")
