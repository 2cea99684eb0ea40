"""One simulated shopper's session: browse, add, have second thoughts, then buy or walk away.

`shop` is pure: given its random generator it returns the same actions every
time. Browsing itself leaves no event (the log records what carts do), but it
takes time, so it shows as the gaps between a session's events.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from kernel.principal import Principal

P_EMPTY = 0.12  # starts a cart, adds nothing (the top of the funnel)
P_ANOTHER_PRODUCT = 0.55  # after each product, browses on to one more
MAX_PRODUCTS = 8
QUANTITIES, QUANTITY_WEIGHTS = (1, 2, 3), (70, 20, 10)
P_CHANGE_QUANTITY = 0.12  # per line, once the browsing is over
P_REMOVE = 0.10  # per line ("added then removed"); planted lines are kept
P_CHECKOUT, P_CHECKOUT_PER_LINE, P_CHECKOUT_MAX = 0.30, 0.05, 0.55
P_COUPON = 0.08
BROWSE_SECONDS = (20, 600)  # looking for the next product
THINK_SECONDS = (5, 120)  # a decision about what is already in the cart


@dataclass(frozen=True, kw_only=True)
class Association:
    """Shoppers who add `sku` also add `also`, with this probability: planted for the recommender."""

    sku: str
    also: str
    probability: float

    @classmethod
    def parse(cls, text: str) -> "Association":
        """`SKU_A:SKU_B:probability`, as given on the command line."""
        wanted = f"{text!r}: want SKU_A:SKU_B:p with two different SKUs and 0 <= p <= 1"
        parts = text.split(":")
        if len(parts) != 3:
            raise ValueError(wanted)
        sku, also, probability = parts
        try:
            value = float(probability)
        except ValueError:
            raise ValueError(wanted) from None
        if not 0.0 <= value <= 1.0 or sku == also:
            raise ValueError(wanted)
        return cls(sku=sku, also=also, probability=value)


@dataclass(frozen=True, kw_only=True)
class Action:
    """One command a shopper sends: start, add, update, remove or checkout."""

    at: datetime
    kind: str
    sku: str = ""
    quantity: int = 0
    coupon: tuple[str, int] | None = None  # (code, percent) used at checkout


@dataclass(frozen=True, kw_only=True)
class Session:
    number: int  # the cart's number in the simulation, 0..carts-1
    owner: Principal
    actions: tuple[Action, ...]


def shop(
    rng: random.Random,
    *,
    number: int,
    owner: Principal,
    opens: datetime,
    skus: Sequence[str],
    weights: Sequence[float],
    coupons: Sequence[tuple[str, int]] = (),
    associations: Sequence[Association] = (),
) -> Session:
    actions = [Action(at=opens, kind="start")]
    if rng.random() >= P_EMPTY and skus:
        lines, planted = _browse_and_add(rng, actions, skus, weights, associations)
        _second_thoughts(rng, actions, lines, planted)
        _maybe_checkout(rng, actions, lines, coupons)
    return Session(number=number, owner=owner, actions=tuple(actions))


def _browse_and_add(
    rng: random.Random,
    actions: list[Action],
    skus: Sequence[str],
    weights: Sequence[float],
    associations: Sequence[Association],
) -> tuple[dict[str, int], set[str]]:
    lines: dict[str, int] = {}
    planted: set[str] = set()
    products = 1
    while products < MAX_PRODUCTS and rng.random() < P_ANOTHER_PRODUCT:
        products += 1
    for sku in rng.choices(skus, weights=weights, k=products):
        if sku in lines:
            continue
        _add(rng, actions, lines, sku, BROWSE_SECONDS)
        for association in associations:
            if association.sku == sku and association.also not in lines and rng.random() < association.probability:
                _add(rng, actions, lines, association.also, THINK_SECONDS)
                planted.add(association.also)
    return lines, planted


def _second_thoughts(rng: random.Random, actions: list[Action], lines: dict[str, int], planted: set[str]) -> None:
    for sku in list(lines):
        draw = rng.random()
        if draw < P_CHANGE_QUANTITY:
            quantity = rng.choice([q for q in range(1, 6) if q != lines[sku]])
            actions.append(Action(at=_later(rng, actions, THINK_SECONDS), kind="update", sku=sku, quantity=quantity))
            lines[sku] = quantity
        elif draw < P_CHANGE_QUANTITY + P_REMOVE and sku not in planted:
            actions.append(Action(at=_later(rng, actions, THINK_SECONDS), kind="remove", sku=sku))
            del lines[sku]


def _maybe_checkout(
    rng: random.Random, actions: list[Action], lines: dict[str, int], coupons: Sequence[tuple[str, int]]
) -> None:
    chance = min(P_CHECKOUT + P_CHECKOUT_PER_LINE * len(lines), P_CHECKOUT_MAX)
    if not lines or rng.random() >= chance:
        return  # abandoned: the cart simply stays open
    coupon = rng.choice(coupons) if coupons and rng.random() < P_COUPON else None
    actions.append(Action(at=_later(rng, actions, THINK_SECONDS), kind="checkout", coupon=coupon))


def _add(rng: random.Random, actions: list[Action], lines: dict[str, int], sku: str, pause: tuple[int, int]) -> None:
    quantity = rng.choices(QUANTITIES, weights=QUANTITY_WEIGHTS)[0]
    actions.append(Action(at=_later(rng, actions, pause), kind="add", sku=sku, quantity=quantity))
    lines[sku] = quantity


def _later(rng: random.Random, actions: list[Action], pause: tuple[int, int]) -> datetime:
    # Whole milliseconds: both backends store them exactly, so replays compare equal.
    return actions[-1].at + timedelta(milliseconds=rng.randrange(pause[0] * 1000, pause[1] * 1000))
