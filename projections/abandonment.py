"""When a cart counts as abandoned, in event time: the one rule the live consumer
(`projections/abandoned_carts.py`) and the Spark batch job (`spark_jobs/abandoned_carts.py`)
both apply. Pure: no Django, no clock; times come from the events.

A cart is *abandoned* when it is open, holds items, and its last activity (the
latest `occurred_at` of its events) lies more than `after` before the watermark.
The watermark is the latest event time seen in the whole shop minus `lateness`:
it trails the newest event so that a straggler (an event recorded after newer
ones) that arrives within `lateness` is counted before a cart is called quiet.
A cart *recovers* when one of its events happens `after` or more past its
previous activity while it was open with items: the shopper came back after a
quiet period. Both depend only on event times and each cart's own order, never
on when or in which batches a consumer met the events, so live, replayed and
batch results agree.
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

CHECKED_OUT = "CheckedOut"


@dataclass(frozen=True, kw_only=True)
class Rule:
    after: timedelta  # quiet this long before the watermark: abandoned
    lateness: timedelta  # how far the watermark trails the newest event time

    def watermark(self, latest_event_at: datetime | None) -> datetime | None:
        return None if latest_event_at is None else latest_event_at - self.lateness


@dataclass(frozen=True, kw_only=True)
class Activity:
    """One cart event as the rule reads it (money as Decimal)."""

    type: str
    occurred_at: datetime
    sku: str | None = None
    quantity: int | None = None  # ItemAdded: units added
    unit_price: Decimal | None = None  # ItemAdded
    to_quantity: int | None = None  # ItemQuantityChanged


@dataclass(frozen=True, kw_only=True)
class Line:
    sku: str
    quantity: int
    unit_price: Decimal


@dataclass(frozen=True, kw_only=True)
class Watch:
    """What the rule keeps of one cart."""

    lines: tuple[Line, ...] = ()
    open: bool = True
    last_activity_at: datetime | None = None
    recoveries: int = 0

    @property
    def item_count(self) -> int:
        return sum(line.quantity for line in self.lines)

    @property
    def value(self) -> Decimal:
        return sum((line.unit_price * line.quantity for line in self.lines), Decimal("0.00"))


def observe(watch: Watch, activity: Activity, rule: Rule) -> Watch:
    """Fold one of the cart's events in (in the cart's stream order)."""
    came_back = (
        watch.open
        and watch.item_count > 0
        and watch.last_activity_at is not None
        and activity.occurred_at >= watch.last_activity_at + rule.after
    )
    last = activity.occurred_at if watch.last_activity_at is None else max(watch.last_activity_at, activity.occurred_at)
    return replace(
        watch,
        lines=_lines_after(watch.lines, activity),
        open=watch.open and activity.type != CHECKED_OUT,
        last_activity_at=last,
        recoveries=watch.recoveries + int(came_back),
    )


def fold(activities: Iterable[Activity], rule: Rule, watch: Watch | None = None) -> Watch:
    for activity in activities:
        watch = observe(watch or Watch(), activity, rule)
    return watch or Watch()


def is_abandoned(watch: Watch, watermark: datetime | None, rule: Rule) -> bool:
    return (
        watermark is not None
        and watch.open
        and watch.item_count > 0
        and watch.last_activity_at is not None
        and watch.last_activity_at + rule.after <= watermark
    )


def _lines_after(lines: tuple[Line, ...], activity: Activity) -> tuple[Line, ...]:
    # The cart's own arithmetic (carts/decider.py: evolve): a line is at the price of its latest add.
    sku = activity.sku
    current = next((line for line in lines if line.sku == sku), None)
    if activity.type == "ItemAdded" and sku is not None:
        if current is None:
            return (
                *lines,
                Line(sku=sku, quantity=activity.quantity or 0, unit_price=activity.unit_price or Decimal(0)),
            )
        return _with(
            lines,
            replace(
                current,
                quantity=current.quantity + (activity.quantity or 0),
                unit_price=activity.unit_price or current.unit_price,
            ),
        )
    if activity.type == "ItemQuantityChanged" and current is not None:
        return _with(lines, replace(current, quantity=activity.to_quantity or 0))
    if activity.type == "ItemRemoved":
        return tuple(line for line in lines if line.sku != sku)
    return lines


def _with(lines: tuple[Line, ...], new: Line) -> tuple[Line, ...]:
    return tuple(new if line.sku == new.sku else line for line in lines)
