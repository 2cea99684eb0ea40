"""The event store's contract (invariants 1 to 3, upcasting, holding appends), backend-neutral.

`EventStoreContract` is subclassed once per backend: PostgreSQL and SQLite in
tests/integration/test_eventlog_store_contract.py, memory in
tests/unit/test_eventlog_memory_store.py. A subclass sets `self.store` and says
how to see a stream's rows as stored (`stored_rows`), before any upcasting.
"""

import threading
import time
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import pytest

from eventlog import registry
from eventlog.errors import WrongExpectedVersionError
from eventlog.records import NewEvent
from eventlog.stores import EventStore, iter_all

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
WAIT = 10.0  # seconds: an upper bound for any one step, never the expected time


def new(type_: str = "Tested", n: int = 0, schema_version: int = 1, **data: Any) -> NewEvent:
    return NewEvent(type=type_, data={"n": n, **data}, occurred_at=NOW, schema_version=schema_version)


def stream(category: str = "test") -> str:
    return f"{category}-{uuid4().hex[:12]}"


def register_renamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ContractRenamed` v2 renamed `name` to `full_name`; registered for one test only."""
    monkeypatch.setattr(registry, "_types", dict(registry._types))
    registry.register(
        registry.EventType(
            name="ContractRenamed",
            schema_version=2,
            upcasters={1: lambda data: {"full_name": data["name"], "n": data["n"]}},
        )
    )


class EventStoreContract:
    store: EventStore

    def stored_rows(self, stream_id: str) -> list[tuple[int, str, int, dict[str, Any]]]:
        """(version, type, schema_version, data) of each event of the stream, as stored."""
        raise NotImplementedError

    def end_thread(self) -> None:
        """What a thread that used the store does before it ends (close its connection)."""

    def visible(self, after: int, count: int) -> None:
        """Wait until `read_all` returns the `count` events committed after `after`.

        On PostgreSQL it holds back everything newer than the oldest transaction
        still writing anywhere on the server, and other test runs share the server:
        an empty read means "not yet". Once visible, events stay visible.
        """
        deadline = time.monotonic() + WAIT
        while len(self.store.read_all(after)) < count and time.monotonic() < deadline:
            time.sleep(0.01)

    # --- appending and reading a stream -------------------------------------------

    def test_append_gives_versions_from_the_expected_one_and_increasing_positions(self) -> None:
        s = stream()
        first = self.store.append(s, 0, [new(n=1), new(n=2)])
        second = self.store.append(s, 2, [new(n=3)])
        assert [e.version for e in first + second] == [1, 2, 3]
        positions = [e.position for e in first + second]
        assert positions == sorted(positions) and len(set(positions)) == 3
        assert self.store.stream_version(s) == 3

    def test_an_event_reads_back_with_every_field(self) -> None:
        s = stream()
        event = NewEvent(type="Tested", data={"a": [1, "x"]}, occurred_at=NOW, metadata={"actor": "user:1"})
        [recorded] = self.store.append(s, 0, [event])
        [read] = self.store.read_stream(s)
        assert read == recorded
        assert (read.event_id, read.type, read.data, read.metadata, read.occurred_at) == (
            event.event_id, "Tested", {"a": [1, "x"]}, {"actor": "user:1"}, NOW,
        )  # fmt: skip

    @pytest.mark.parametrize("stale", [0, 1, 3])
    def test_a_stale_expected_version_is_refused_and_appends_nothing(self, stale: int) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=1), new(n=2)])
        with pytest.raises(WrongExpectedVersionError), self.store.atomic():
            self.store.append(s, stale, [new(n=99)])
        assert [e.data["n"] for e in self.store.read_stream(s)] == [1, 2]
        self.store.append(s, 2, [new(n=3)])  # the store is usable after the refusal
        assert self.store.stream_version(s) == 3

    # --- catching up: a stale append that says what it missed ------------------------

    def test_a_stale_append_asked_to_catch_up_returns_what_it_missed_and_appends_nothing(self) -> None:
        s = stream()
        written = self.store.append(s, 0, [new(n=1), new(n=2), new(n=3), new(n=4)])
        with pytest.raises(WrongExpectedVersionError) as behind:
            self.store.append(s, 1, [new(n=99)], catch_up=10)
        assert behind.value.missed == written[1:]  # versions 2, 3, 4 with every field
        assert [e.data["n"] for e in self.store.read_stream(s)] == [1, 2, 3, 4]

    def test_catching_up_returns_at_most_what_was_asked_for_oldest_first(self) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=n) for n in range(1, 6)])
        with pytest.raises(WrongExpectedVersionError) as behind:
            self.store.append(s, 1, [new(n=99)], catch_up=2)
        assert [(e.version, e.data["n"]) for e in behind.value.missed or []] == [(2, 2), (3, 3)]

    def test_an_append_that_catches_up_appends_as_any_other_when_the_version_holds(self) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=1)])
        [appended] = self.store.append(s, 1, [new(n=2)], catch_up=10)
        assert appended.version == 2 and self.store.read_stream(s)[-1] == appended

    def test_an_append_expecting_more_than_the_stream_has_misses_nothing(self) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=1)])
        with pytest.raises(WrongExpectedVersionError) as behind:
            self.store.append(s, 5, [new(n=99)], catch_up=10)
        assert behind.value.missed == []
        assert self.store.stream_version(s) == 1

    def test_without_catch_up_a_stale_append_says_nothing_of_what_it_missed(self) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=1)])
        with pytest.raises(WrongExpectedVersionError) as behind:
            self.store.append(s, 0, [new(n=2)])
        assert behind.value.missed is None

    def test_a_failed_unit_of_work_appends_nothing(self) -> None:
        s = stream()
        with pytest.raises(ZeroDivisionError), self.store.atomic():
            self.store.append(s, 0, [new(n=1)])
            _ = 1 / 0
        assert self.store.read_stream(s) == [] and self.store.stream_version(s) == 0

    def test_a_unit_of_work_commits_every_append_in_it(self) -> None:
        s, t = stream(), stream()
        with self.store.atomic():
            self.store.append(s, 0, [new(n=1)])
            self.store.append(t, 0, [new(n=2), new(n=3)])
            assert self.store.stream_version(s) == 1  # its own appends read back inside
        assert [e.data["n"] for e in self.store.read_stream(s) + self.store.read_stream(t)] == [1, 2, 3]

    def test_read_stream_up_to_a_version_is_the_stream_as_it_was(self) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=i) for i in range(1, 6)])
        assert [e.version for e in self.store.read_stream(s, up_to_version=3)] == [1, 2, 3]
        assert [e.version for e in self.store.read_stream(s)] == [1, 2, 3, 4, 5]
        assert self.store.read_stream(stream()) == []

    def test_read_stream_after_a_version_returns_only_the_rest_in_order(self) -> None:
        s = stream()
        self.store.append(s, 0, [new(n=i) for i in range(1, 6)])
        assert [e.data["n"] for e in self.store.read_stream(s, after_version=3)] == [4, 5]
        assert [e.version for e in self.store.read_stream(s, up_to_version=4, after_version=1)] == [2, 3, 4]
        assert self.store.read_stream(s, after_version=5) == []

    def test_streams_do_not_see_each_other(self) -> None:
        a, b = stream(), stream()
        self.store.append(a, 0, [new(n=1)])
        self.store.append(b, 0, [new(n=2)])
        assert [e.data["n"] for e in self.store.read_stream(a)] == [1]
        assert self.store.stream_version(b) == 1

    def test_an_old_schema_version_is_upcast_on_read_and_stays_old_in_the_table(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        register_renamed(monkeypatch)
        s = stream()
        self.store.append(s, 0, [new("ContractRenamed", n=1, schema_version=1, name="Ada")])
        [read] = self.store.read_stream(s)
        assert (read.schema_version, read.data) == (2, {"full_name": "Ada", "n": 1})
        [(_, _, stored_schema, stored_data)] = self.stored_rows(s)
        assert stored_schema == 1
        assert stored_data == {"name": "Ada", "n": 1}

    # --- reading the whole log ------------------------------------------------------

    def test_read_all_returns_everything_after_a_position_in_order_in_batches(self) -> None:
        start = self.store.head_position()
        a, b = stream(), stream()
        written = []
        for i in range(7):
            s = a if i % 2 else b
            written += self.store.append(s, self.store.stream_version(s), [new(n=i)])
        self.visible(start, 7)
        batches = list(iter_all(self.store, start, batch_size=3))
        assert [len(batch) for batch in batches] == [3, 3, 1]
        read = [event for batch in batches for event in batch]
        assert [e.event_id for e in read] == [e.event_id for e in written]
        assert [e.position for e in read] == sorted(e.position for e in written)
        assert [e.position for e in self.store.read_all(written[3].position)] == [e.position for e in written[4:]]

    def test_read_all_filters_by_stream_category(self) -> None:
        start = self.store.head_position()
        self.store.append(stream("alpha"), 0, [new(n=1)])
        self.store.append(stream("beta"), 0, [new(n=2)])
        self.visible(start, 2)
        assert [e.data["n"] for e in self.store.read_all(start, categories=["beta"])] == [2]

    def test_read_all_upcasts_like_read_stream(self, monkeypatch: pytest.MonkeyPatch) -> None:
        register_renamed(monkeypatch)
        start = self.store.head_position()
        self.store.append(stream(), 0, [new("ContractRenamed", n=1, name="Ada")])
        self.visible(start, 1)
        assert [(e.schema_version, e.data) for e in self.store.read_all(start)] == [(2, {"full_name": "Ada", "n": 1})]

    # --- holding appends --------------------------------------------------------------

    def test_an_append_waits_while_appends_are_held_and_the_holder_reads_everything_committed(self) -> None:
        start = self.store.head_position()
        before, during = stream(), stream()
        self.store.append(before, 0, [new(n=1)])
        appended = threading.Event()

        def writer() -> None:
            try:
                with self.store.atomic():
                    self.store.append(during, 0, [new(n=2)])
                appended.set()
            finally:
                self.end_thread()

        thread = threading.Thread(target=writer)
        with self.store.atomic(), self.store.hold_appends() as log:
            thread.start()
            assert not appended.wait(0.3), "an append went through while appends were held"
            assert [e.stream_id for e in log.read_all(start)] == [before]
        thread.join(WAIT)
        assert appended.is_set() and self.store.stream_version(during) == 1
