"""Every projection by name: what it reads, where it writes, and its code version.

A projection is a module (or object) with NAME, VERSION, TABLE, CATEGORIES and
`apply(events, table)`. Inline projections run inside the command's
transaction; async ones run in a consumer (`run_consumers`). Rebuilds look
projections up here by name.
"""

from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol

from eventlog.records import RecordedEvent


class Projection(Protocol):
    NAME: str
    VERSION: int
    TABLE: str
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
ASYNC_MODULES: list[str] = []


def all_projections() -> list[Any]:
    return [*inline(), *asynchronous()]


def get(name: str) -> ModuleType | Any:
    for projection in all_projections():
        if name == projection.NAME:
            return projection
    known = ", ".join(p.NAME for p in all_projections())
    raise KeyError(f"unknown projection {name!r}; known: {known}")
