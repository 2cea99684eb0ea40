"""What the simulated shoppers will do: a pure, seeded plan of sessions, day by day.

No Django and no clock here: the same seed and settings always give the same
sessions, so the log a simulation writes is reproducible (bar the ids). Each
cart draws from its own generator, seeded by (seed, cart number), so a day's
sessions can be planned without planning the days before it.
"""

import heapq
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from kernel.principal import Principal

from .shopper import Action, Association, Session, shop

# Relative traffic per hour of the day (UTC): quiet nights, a lunch bump, busy evenings.
HOURLY_TRAFFIC = (1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 6, 6, 7, 8, 10, 11, 10, 7, 3)
WEEKEND_TRAFFIC = 1.3  # Saturdays and Sundays see more carts
ZIPF_EXPONENT = 0.9  # how much more often the popular products are picked


@dataclass(frozen=True, kw_only=True)
class PlanSettings:
    carts: int
    seed: int
    days: int = 30
    start: date = date(2026, 1, 1)
    skus: tuple[str, ...] = ()  # active products a shopper may add
    coupons: tuple[tuple[str, int], ...] = ()  # reusable (code, percent) shoppers sometimes use
    associations: tuple[Association, ...] = field(default_factory=tuple)


def default_associations() -> tuple[Association, ...]:
    """The buying patterns planted unless told otherwise; the recommendations must find them."""
    return (
        Association(sku="BOK-001", also="BOK-006", probability=0.7),
        Association(sku="KIT-001", also="KIT-002", probability=0.6),
    )


def carts_per_day(settings: PlanSettings) -> list[int]:
    """How many carts start on each day: weekends busier, the total exactly `carts`."""
    weights = [WEEKEND_TRAFFIC if (settings.start + timedelta(d)).weekday() >= 5 else 1.0 for d in range(settings.days)]
    shares = [settings.carts * w / sum(weights) for w in weights]
    counts = [int(share) for share in shares]
    by_remainder = sorted(range(settings.days), key=lambda d: (counts[d] - shares[d], d))
    for day in by_remainder[: settings.carts - sum(counts)]:
        counts[day] += 1
    return counts


def plan_days(settings: PlanSettings) -> Iterator[tuple[date, list[Session]]]:
    """Each day with the sessions that start on it, in order of their start time."""
    popularity = product_weights(settings)
    shoppers = max(1, settings.carts * 3 // 5)  # some shoppers come back for another cart
    first = 0
    for offset, count in enumerate(carts_per_day(settings)):
        day = settings.start + timedelta(days=offset)
        sessions = [_session(settings, number, day, shoppers, popularity) for number in range(first, first + count)]
        first += count
        yield day, sorted(sessions, key=lambda s: (s.actions[0].at, s.number))


def product_weights(settings: PlanSettings) -> list[float]:
    """A popularity per SKU (Zipf over a seeded ranking), in the order of `settings.skus`.

    The planted associations' first products lead the ranking, so their pattern
    has enough support to be found even in a small simulation.
    """
    planted = list(dict.fromkeys(a.sku for a in settings.associations if a.sku in settings.skus))
    others = [sku for sku in settings.skus if sku not in planted]
    random.Random(f"{settings.seed}:catalog").shuffle(others)
    rank = {sku: position for position, sku in enumerate(planted + others)}
    return [1.0 / (rank[sku] + 1) ** ZIPF_EXPONENT for sku in settings.skus]


def interleave(sessions: Sequence[Session]) -> Iterator[tuple[Session, Action]]:
    """All the sessions' actions in time order, as a live shop would receive them."""
    streams = ([(action.at, session.number, index, session, action) for index, action in enumerate(session.actions)]
               for session in sessions)  # fmt: skip
    for _, _, _, session, action in heapq.merge(*streams, key=lambda item: item[:3]):
        yield session, action


def _session(settings: PlanSettings, number: int, day: date, shoppers: int, popularity: list[float]) -> Session:
    rng = random.Random(f"{settings.seed}:{number}")
    opens = _session_start(rng, day)
    owner = Principal.visitor(f"sim-{rng.randrange(shoppers)}")
    return shop(
        rng, number=number, owner=owner, opens=opens, skus=settings.skus, weights=popularity,
        coupons=settings.coupons, associations=settings.associations,
    )  # fmt: skip


def _session_start(rng: random.Random, day: date) -> datetime:
    hour = rng.choices(range(24), weights=HOURLY_TRAFFIC)[0]
    return datetime.combine(day, time(hour), tzinfo=UTC) + timedelta(seconds=rng.randrange(3600))
