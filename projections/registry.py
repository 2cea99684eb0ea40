"""Every projection by name: what it reads, where it writes, and its code version.

A projection is a module (or object) with:

- NAME: stable name ("cart_view"); VERSION: bumped when its code changes its rows;
- TABLE: the one live table it writes; KEY: that table's primary-key column;
- CATEGORIES: the stream categories it reads ("cart", "claim");
- apply(events, table=TABLE, *, using="default"): fold events into `table`.

`apply` must be deterministic (no clock, no randomness: times come from the
events) and work on an empty table of any name with the live table's schema,
because a rebuild runs the very same function into a shadow table. Inline
projections run inside the command's transaction; async ones run in a consumer
(`run_consumers`), which commits their rows with the checkpoint.
"""

from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol

from eventlog.records import RecordedEvent


class Projection(Protocol):
    NAME: str
    VERSION: int
    TABLE: str
    KEY: str
    CATEGORIES: tuple[str, ...]

    def apply(self, events: Sequence[RecordedEvent], table: str = ..., *, using: str = ...) -> None: ...


def inline() -> list[Any]:
    from . import cart_view

    return [cart_view]


def asynchronous() -> list[Any]:
    """Projections run by consumers; later modules add themselves to ASYNC_MODULES."""
    import importlib

    return [importlib.import_module(name) for name in ASYNC_MODULES]


# Dotted module names of async projections, in the order they are listed to operators.
ASYNC_MODULES: list[str] = ["projections.product_activity", "projections.order_history"]


# Projections that are the private state of a consumer, written by that consumer
# only (it must read them in step with its own decisions, so they never run as a
# consumer of their own); listed here so they can be verified and rebuilt.
CONSUMER_STATE_MODULES: list[str] = ["claims.projection"]


def consumer_state() -> list[Any]:
    import importlib

    return [importlib.import_module(name) for name in CONSUMER_STATE_MODULES]


def all_projections() -> list[Any]:
    return [*inline(), *asynchronous(), *consumer_state()]


def get(name: str) -> ModuleType | Any:
    for projection in all_projections():
        if name == projection.NAME:
            return projection
    known = ", ".join(p.NAME for p in all_projections())
    raise KeyError(f"unknown projection {name!r}; known: {known}")
