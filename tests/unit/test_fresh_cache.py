"""kernel.fresh_cache: what may be served from memory, against a feed driven by hand."""

from collections.abc import Sequence

from kernel.fresh_cache import FreshCache


class Feed:
    """An announcer by hand: `announce(kind)` is a notification arriving; `reconnect()` a new session."""

    def __init__(self) -> None:
        self.connected = True
        self.generation = 0
        self.reconnected = 0
        self.announced: dict[str, int] = {}

    def news(self, seen: int, categories: Sequence[str]) -> bool:
        if self.reconnected > seen:
            return True
        return any(self.announced.get(kind, 0) > seen for kind in categories)

    def announce(self, kind: str) -> None:
        self.generation += 1
        self.announced[kind] = self.generation

    def reconnect(self) -> None:
        self.generation += 1
        self.reconnected = self.generation


class Table:
    """The database: rows, and how many times they were read."""

    def __init__(self, **rows: str) -> None:
        self.rows = dict(rows)
        self.reads = 0

    def load(self, keys: list[str]) -> dict[str, str]:
        self.reads += 1
        return {key: self.rows[key] for key in keys if key in self.rows}


def cache_on(feed: Feed | None) -> FreshCache[str, str]:
    cache: FreshCache[str, str] = FreshCache(kinds=["product"])
    cache.feed = lambda: feed
    return cache


def test_a_value_is_read_once_while_nothing_is_announced() -> None:
    feed, table = Feed(), Table(a="1", b="2")
    cache = cache_on(feed)
    assert cache.get_many(["a", "b"], table.load) == {"a": "1", "b": "2"}
    feed.announce("tokens")  # another kind: not ours
    assert cache.get_many(["b", "a"], table.load) == {"a": "1", "b": "2"}
    assert table.reads == 1


def test_only_the_missing_keys_are_read() -> None:
    feed, table = Feed(), Table(a="1", b="2")
    cache = cache_on(feed)
    cache.get_many(["a"], table.load)
    read: list[list[str]] = []

    def load(keys: list[str]) -> dict[str, str]:
        read.append(keys)
        return table.load(keys)

    cache.get_many(["a", "b"], load)
    assert read == [["b"]]


def test_an_announcement_of_its_kind_makes_every_entry_stale() -> None:
    feed, table = Feed(), Table(a="1")
    cache = cache_on(feed)
    cache.get_many(["a"], table.load)
    table.rows["a"] = "2"
    feed.announce("product")
    assert cache.get_many(["a"], table.load) == {"a": "2"}
    assert table.reads == 2


def test_a_change_announced_while_its_row_was_being_read_is_not_kept() -> None:
    """The entry carries the generation from before the read: a notification that arrives
    during the read (the change committed after the row was read) makes it stale."""
    feed, table = Feed(), Table(a="old")
    cache = cache_on(feed)

    def read_then_change(keys: list[str]) -> dict[str, str]:
        rows = table.load(keys)
        table.rows["a"] = "new"
        feed.announce("product")
        return rows

    assert cache.get_many(["a"], read_then_change) == {"a": "old"}
    assert cache.get_many(["a"], table.load) == {"a": "new"}


def test_a_reconnect_makes_every_entry_stale() -> None:
    feed, table = Feed(), Table(a="1")
    cache = cache_on(feed)
    cache.get_many(["a"], table.load)
    feed.reconnect()
    cache.get_many(["a"], table.load)
    assert table.reads == 2


def test_without_a_feed_or_while_it_is_away_every_get_reads() -> None:
    table = Table(a="1")
    for cache in (cache_on(None), cache_on(away := Feed())):
        away.connected = False
        cache.get_many(["a"], table.load)
        cache.get_many(["a"], table.load)
    assert table.reads == 4


def test_a_missing_key_is_read_again_and_never_cached() -> None:
    feed, table = Feed(), Table()
    cache = cache_on(feed)
    assert cache.get_many(["x"], table.load) == {}
    table.rows["x"] = "now here"
    assert cache.get_many(["x"], table.load) == {"x": "now here"}


def test_a_full_cache_starts_over_instead_of_growing() -> None:
    feed, table = Feed(), Table(**{f"k{n}": str(n) for n in range(5)})
    cache: FreshCache[str, str] = FreshCache(kinds=["product"], max_entries=3)
    cache.feed = lambda: feed
    cache.get_many(["k0", "k1", "k2"], table.load)
    cache.get_many(["k3"], table.load)  # a fourth entry: the three before are dropped
    assert len(cache._entries) == 1
