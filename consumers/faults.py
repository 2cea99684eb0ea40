"""The fault lab's switches (lab/, docs/fault-lab.md), read by the consumer runner before each batch.

A switch is a row (`FaultSwitch`), so a page or a command in one process flips it for
`run_consumers` in another. Off unless `settings.LAB_ENABLED`: then the runner's transport
is wrapped in `FaultyTransport`, which pauses a consumer, crashes its batch after the
handler and before the commit, or hands one batch out twice; `gated` stops the relay.
The hold switch is obeyed by the lab's holder, beside the consumers (lab/holder.py).
"""

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from enum import StrEnum

from django.conf import settings
from django.db import Error as DatabaseError
from django.db import connection
from django.db.models import F

from claims.validator import NAME as CLAIM_VALIDATOR

from .models import FaultSwitch
from .transports import Batch, Settling, Transport, Wakeable

log = logging.getLogger(__name__)
GATE_SECONDS = 0.5  # how often a stopped relay looks at its switch


class Fault(StrEnum):
    PAUSE = "pause"  # a consumer (the switch's `consumer`) reads nothing
    CRASH = "crash"  # its every batch fails after the handler, before the commit
    DUPLICATE = "duplicate"  # its next batch is handed out twice (fires once)
    RELAY = "relay"  # the relay stops: nothing new reaches Kafka
    VALIDATOR = "validator"  # the claim validator pauses: sign-ups wait
    HOLD = "hold"  # an item is added to the lab's own cart and its transaction held open (lab/holder.py)


class LabCrashError(Exception):
    """Raised by the lab inside a batch's transaction, before its commit: the batch rolls back."""


def switches() -> dict[Fault, FaultSwitch]:
    found = {row.name: row for row in FaultSwitch.objects.all()}
    return {fault: found.get(fault.value) or FaultSwitch(name=fault.value) for fault in Fault}


def turn(fault: Fault, on: bool, consumer: str = "") -> None:
    """Flip a switch; turning it on starts its count and note afresh."""
    fields = {"on": on, "consumer": consumer} if on else {"on": False}
    if on:
        fields |= {"fired": 0, "note": ""}
    FaultSwitch.objects.update_or_create(name=fault.value, defaults=fields)


def is_on(fault: Fault) -> bool:
    return FaultSwitch.objects.filter(name=fault.value, on=True).exists()


def fired(fault: Fault, note: str, *, once: bool = False) -> bool:
    """Count a firing and say what it did; a one-shot switch turns off as it fires (False: already fired)."""
    rows = FaultSwitch.objects.filter(name=fault.value, on=True)
    changes = {"fired": F("fired") + 1, "note": note[:300]}
    return rows.update(**changes, **({"on": False} if once else {})) == 1


def acting_on(consumer: str) -> set[Fault]:
    """The switches that are on for `consumer`: one small query per batch."""
    on = FaultSwitch.objects.filter(on=True).values_list("name", "consumer")
    faults = {Fault(name) for name, target in on if target == consumer}
    if consumer == CLAIM_VALIDATOR and any(name == Fault.VALIDATOR for name, _ in on):
        faults.add(Fault.PAUSE)
    return faults


def wrap(transport: Transport, consumer: str) -> Transport:
    """The runner's transport, with the lab's switches in front of it when the lab is enabled."""
    return FaultyTransport(transport, consumer) if settings.LAB_ENABLED else transport


class FaultyTransport:
    """A transport that obeys the switches; with every switch off it hands batches through untouched."""

    def __init__(self, inner: Transport, consumer: str) -> None:
        self.inner, self.consumer, self.name = inner, consumer, inner.name
        self.again: Batch | None = None

    def fetch(self, consumer: str, categories: Sequence[str], limit: int) -> Batch:
        faults = acting_on(consumer)
        if Fault.PAUSE in faults:
            return Batch(events=[])
        if self.again is not None:  # the second delivery: its commit finds the checkpoint moved and rolls back
            batch, self.again = self.again, None
            return batch
        batch = self.inner.fetch(consumer, categories, limit)
        if not batch.events:
            return batch
        span = _span([event.position for event in batch.events])
        if Fault.CRASH in faults:
            fired(Fault.CRASH, f"{consumer}: crashed its batch of {span} before the commit; it comes again")
            return replace(batch, commit=_crash(consumer, span))
        if Fault.DUPLICATE in faults and fired(Fault.DUPLICATE, f"{consumer}: delivered {span} twice", once=True):
            return self._twice(batch)
        return batch

    def _twice(self, batch: Batch) -> Batch:
        if self.inner.name == "table":
            self.again = batch  # handed out again as it is: the checkpoint's compare-and-set refuses it
            return batch
        # Kafka: the offsets are not confirmed, so the transport rewinds and the broker redelivers;
        # the repeats fall at or below the consumer's progress and are dropped.
        return replace(batch, after_commit=lambda: None)

    @property
    def settle_seconds(self) -> float:
        return self.inner.settle_seconds if isinstance(self.inner, Settling) else 0.0

    def settled(self) -> bool:
        return not isinstance(self.inner, Settling) or self.inner.settled()

    def idle(self, stop: threading.Event, poll_seconds: float) -> None:
        if isinstance(self.inner, Wakeable):
            self.inner.idle(stop, poll_seconds)
        else:
            stop.wait(poll_seconds)

    def close(self) -> None:
        self.inner.close()


def _span(positions: Sequence[int]) -> str:
    # A Kafka batch is in partition order, not log order: its first and last are not its ends
    # (a crash note read "positions 115..114"), and it need not hold every position between.
    low, high = min(positions), max(positions)
    every = len(positions) == high - low + 1
    return f"positions {low}..{high}" if every else f"{len(positions)} events in {low}..{high}"


def _crash(consumer: str, span: str) -> Callable[[], None]:
    def commit() -> None:
        raise LabCrashError(f"the fault lab crashed {consumer} mid-batch ({span}), before its commit")

    return commit


def gated(fault: Fault, target: Callable[[threading.Event], object], stop: threading.Event) -> None:
    """Run `target(its_stop)` while `fault` is off; stop it while on, start it again when off."""
    if not settings.LAB_ENABLED:
        target(stop)
        return
    while not stop.is_set():
        own_stop, died = threading.Event(), list[BaseException]()
        thread = threading.Thread(target=_catching(target, own_stop, died), name=f"gated-{fault}", daemon=True)
        thread.start()
        while thread.is_alive() and not stop.wait(GATE_SECONDS) and not _quietly_on(fault):
            pass
        own_stop.set()
        thread.join()
        if died:
            raise died[0]
        if not stop.is_set():
            log.warning("fault lab: %s stopped by its switch", fault)
        while not stop.is_set() and _quietly_on(fault):
            stop.wait(GATE_SECONDS)


def _catching(
    target: Callable[[threading.Event], object], stop: threading.Event, died: list[BaseException]
) -> Callable[[], None]:
    def run() -> None:
        try:
            target(stop)
        except BaseException as error:
            died.append(error)
        finally:
            connection.close()

    return run


def _quietly_on(fault: Fault) -> bool:
    """The database away: the switch reads as off (the gated loop retries the database by itself)."""
    try:
        return is_on(fault)
    except DatabaseError:
        connection.close()
        return False
