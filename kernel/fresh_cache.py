"""A per-process cache that is only trusted while a notification feed says nothing changed.

The API reads a few rows on every request that almost never change: the token a
client sends, the name and price of a product. `FreshCache` keeps them in memory
and drops them when the database announces a change of their kind. The feed is
an `Announcer` (in this project the LISTEN session of consumers/wakeup.py, which hears
every append and every token change: the notifications of eventlog/announcer.py, sent just
after the commit, or at the commit for the categories announced there):

* an entry remembers the feed's generation taken *before* its row was read, so a
  change that commits after the read is always announced after that generation;
* an entry is used only if its kind has not been announced since (`news`), and the
  feed is connected: while it is away nothing is cached, and its reconnect counts
  as news of every kind (notifications sent meanwhile are lost);
* with no feed (SQLite, or not wired) every `get` reads.

What it cannot promise: between a change's commit and its notification reaching
this process (milliseconds) another process may still serve the old value once.
Nothing here imports Django.
"""

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Announcer(Protocol):
    connected: bool
    generation: int

    def news(self, seen: int, categories: Sequence[str]) -> bool:
        """Has any of `categories` been announced (or the feed reconnected) after generation `seen`?"""
        ...


class FreshCache(Generic[K, V]):
    def __init__(self, kinds: Sequence[str], *, max_entries: int = 10_000) -> None:
        self.kinds = tuple(kinds)  # the announcements that make every entry stale
        self.max_entries = max_entries
        self.feed: Callable[[], Announcer | None] = lambda: None  # wired at start (cartlog.bootstrap)
        self._entries: dict[K, tuple[int, V]] = {}
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[K], load: Callable[[list[K]], dict[K, V]]) -> dict[K, V]:
        """The values of `keys`, from memory where still fresh, the rest from `load` (one call).
        A key `load` does not return is not cached: asked again, it is loaded again."""
        keys = list(dict.fromkeys(keys))
        feed = self.feed()
        if feed is None or not feed.connected:
            return load(keys)
        seen = feed.generation  # before the read: a change committed after it is news after `seen`
        found: dict[K, V] = {}
        with self._lock:
            for key in keys:
                entry = self._entries.get(key)
                if entry is not None and not feed.news(entry[0], self.kinds):
                    found[key] = entry[1]
        missing = [key for key in keys if key not in found]
        if missing:
            loaded = load(missing)
            found.update(loaded)
            with self._lock:
                if len(self._entries) + len(loaded) > self.max_entries:
                    self._entries.clear()
                self._entries.update((key, (seen, value)) for key, value in loaded.items())
        return found

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
