"""Invariant 3 on PostgreSQL: a reader polling "after position P" never skips an event.

Positions come from a sequence, so a transaction can take position 10, stay open,
and commit after another took 11 and committed. A reader that saw 11 and moved
its checkpoint past it would never see 10. Each scenario here is run with two
followers side by side: `store.read_all` (must see everything) and the naive
`position > P` read (must be caught skipping), which proves the scenario can
detect the bug it guards against.
"""

import json
import random
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from uuid import uuid4

import pytest
from django.db import connection, connections, transaction

from eventlog import store
from eventlog.records import NewEvent

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NOW = datetime(2026, 1, 1, tzinfo=UTC)
WAIT = 10.0  # seconds: an upper bound for any one step, never the expected time

Read = Callable[[int], list[int]]


def gap_safe_read(after: int) -> list[int]:
    return [event.position for event in store.read_all(after, 100)]


def naive_read(after: int) -> list[int]:
    """The bug this file guards against: `position > P` without the transaction-id filter."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT position FROM eventlog_event WHERE position > %s ORDER BY position LIMIT 100", [after])
        return [row[0] for row in cursor.fetchall()]


class Follower:
    """A consumer's loop body: read after the checkpoint, remember, move the checkpoint."""

    def __init__(self, read: Read) -> None:
        self.read = read
        self.checkpoint = 0
        self.seen: list[int] = []

    def poll(self) -> None:
        while batch := self.read(self.checkpoint):
            self.seen += batch
            self.checkpoint = batch[-1]

    def catch_up(self, count: int) -> None:
        """Poll until `count` events were seen. The gap-safe read waits for the oldest
        writing transaction on the whole server (other test runs share it), so an
        empty read means "not yet", and a consumer simply polls again."""
        deadline = time.monotonic() + WAIT
        self.poll()
        while len(self.seen) < count and time.monotonic() < deadline:
            time.sleep(0.01)
            self.poll()


def poll(*followers: Follower) -> None:
    for follower in followers:
        follower.poll()


def committed_positions() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT position FROM eventlog_event ORDER BY position")
        return [row[0] for row in cursor.fetchall()]


def one_event() -> list[NewEvent]:
    return [NewEvent(type="Tested", data={}, occurred_at=NOW)]


def append_one(stream_id: str) -> None:
    store.append(stream_id, 0, one_event())


def write_first() -> None:
    """Give the transaction an id before it appends: the slow path of eventlog_append."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS gap_scratch (n integer)")
        cursor.execute("INSERT INTO gap_scratch VALUES (1)")


def append_bypassing_the_protocol(stream_id: str) -> None:
    """A plain INSERT, without eventlog_append's locks: what a slow-path append would
    be if the function did not serialise it. Only the negative control uses it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO eventlog_event (event_id, stream_id, version, type, schema_version, data, metadata,"
            " occurred_at, recorded_at) VALUES (%s, %s, 1, 'Tested', 1, %s, %s, now(), now())",
            [str(uuid4()), stream_id, json.dumps({}), json.dumps({})],
        )


class HeldWriter(threading.Thread):
    """A writer on its own connection that appends, then holds its transaction open
    until released, so the test decides when it commits."""

    def __init__(self, *, before: Callable[[], None] | None = None, append: Callable[[str], None] | None = None):
        super().__init__(daemon=True)
        self.before = before
        self.append = append or append_one
        self.has_xid, self.go, self.appended, self.release, self.committed = (threading.Event() for _ in range(5))
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with transaction.atomic():
                if self.before:
                    self.before()
                    self.has_xid.set()
                    assert self.go.wait(WAIT)
                self.append(f"gap-{uuid4().hex}")
                self.appended.set()
                assert self.release.wait(WAIT)
            self.committed.set()
        except BaseException as error:  # reported by finish()
            self.error = error
        finally:
            connections.close_all()

    def started(self) -> "HeldWriter":
        """Started, and waiting: with its transaction id taken if it has a `before`, else appended."""
        self.start()
        assert (self.has_xid if self.before else self.appended).wait(WAIT)
        return self

    def finish(self) -> None:
        self.release.set()
        self.join(WAIT)
        assert not self.is_alive() and self.error is None, self.error


def two_early_ids_around_a_fast_append(*followers: Follower, midway: Callable[[], object] = lambda: None) -> None:
    """Two transactions take their ids, a fast append runs between them; the first appends after
    the fast append commits and commits; the followers poll while the second is still open
    (then `midway`), and catch up with all three events once it commits."""
    first = HeldWriter(before=write_first).started()
    second = HeldWriter(before=write_first).started()  # an id between the first's and the fast append's
    fast = HeldWriter().started()
    first.go.set()
    first.release.set()  # appends once the fast append has committed, then commits
    fast.finish()
    assert first.committed.wait(WAIT)
    poll(*followers)  # the second is open: the fast append's event is committed but not safe yet
    midway()
    second.go.set()
    second.finish()
    for follower in followers:
        follower.catch_up(3)


def test_an_event_committed_after_a_later_position_is_still_read_once_in_order() -> None:
    safe, naive = Follower(gap_safe_read), Follower(naive_read)
    slow = HeldWriter().started()  # takes the lower position, stays open
    fast = HeldWriter().started()
    fast.finish()  # the higher position commits first
    poll(safe, naive)
    slow.finish()
    naive.poll()
    safe.catch_up(2)

    everything = committed_positions()
    assert len(everything) == 2
    assert safe.seen == everything
    assert naive.seen == everything[1:], "negative control: the naive read skips the late commit"


def test_a_writer_that_wrote_before_appending_never_makes_the_reader_skip() -> None:
    """The slow path: the transaction's id is older than a concurrent fast append's,
    yet its position is newer. eventlog_append makes it wait for the fast append's
    commit, so the reader cannot pass the fast append's position early."""
    safe = Follower(gap_safe_read)
    early_xid = HeldWriter(before=write_first).started()
    fast = HeldWriter().started()  # newer transaction id, lower position, still open
    early_xid.go.set()
    early_xid.release.set()  # it would commit at once if it could append
    assert not early_xid.committed.wait(0.5), "the slow path must wait for the open fast append"
    safe.poll()
    fast.finish()
    early_xid.finish()
    safe.catch_up(2)
    assert safe.seen == committed_positions() and len(safe.seen) == 2


def test_two_writers_that_took_their_ids_before_appending_never_make_the_reader_skip() -> None:
    """Two old transaction ids and a fast append between them. The first old one appends after the
    fast append (it waits for its commit) and commits; the second is still open. Its id holds the
    reader's horizon between the two, so the first one's event passes the transaction-id filter
    while the fast append's, at a lower position and committed, does not. A reader that returned
    the later event would never see the earlier one: read_all stops at the first committed event
    that is not safe yet. (Every checkout with stock is such a transaction: carts/checkout.py.)"""
    safe = Follower(gap_safe_read)
    two_early_ids_around_a_fast_append(safe)
    everything = committed_positions()
    assert len(everything) == 3
    assert safe.seen == everything


def test_negative_control_without_the_slow_path_lock_the_reader_would_skip() -> None:
    """Same scenario, but the early-id writer inserts without eventlog_append: it
    commits while the fast append is open, and read_all's own filter then lets the
    reader pass the open append's position. This is what the test above rules out."""
    safe = Follower(gap_safe_read)
    early_xid = HeldWriter(before=write_first, append=append_bypassing_the_protocol).started()
    fast = HeldWriter().started()
    early_xid.go.set()
    early_xid.finish()
    safe.catch_up(1)  # reads the early writer's event, past the open append's position
    fast.finish()
    safe.poll()  # its checkpoint is already past the open append's position: that event is lost
    everything = committed_positions()
    assert len(everything) == 2
    assert safe.seen == everything[1:]


@pytest.mark.slow
def test_many_writers_some_slow_some_early_and_a_polling_reader_see_everything_once() -> None:
    rng = random.Random(20261122)
    stop = threading.Event()
    safe, naive = Follower(gap_safe_read), Follower(naive_read)
    errors: list[BaseException] = []

    def writer(kind: str, seed: int) -> None:
        local = random.Random(seed)
        try:
            for _ in range(8):
                with transaction.atomic():
                    if kind == "early":
                        write_first()
                    store.append(f"gap-{uuid4().hex}", 0, one_event())
                    if kind != "fast":
                        time.sleep(local.uniform(0.01, 0.08))
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    def reader() -> None:
        try:
            while not stop.is_set():
                poll(safe, naive)
                time.sleep(0.002)
        finally:
            connections.close_all()

    kinds = ["fast", "fast", "fast", "slow", "slow", "early"]
    writers = [threading.Thread(target=writer, args=(kind, rng.random())) for kind in kinds]
    polling = threading.Thread(target=reader)
    polling.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(60)
    stop.set()
    polling.join(WAIT)
    safe.catch_up(8 * len(kinds))

    assert not errors, errors
    everything = committed_positions()
    assert len(everything) == 8 * len(kinds)
    assert safe.seen == everything  # every event, exactly once, in position order
    print(f"naive reader skipped {len(set(everything) - set(naive.seen))} of {len(everything)}")
