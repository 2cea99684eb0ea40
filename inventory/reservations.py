"""Checkout's process manager for stock: reserve every line, then confirm with the order, or release.

    reserve each tracked line (one append per stock stream, each committed at once)
      -> the order and every ReservationConfirmed, in one transaction (carts/checkout.py)
      -> or, if the checkout fails, ReservationReleased for what was reserved
      -> or, if the process died in between, the sweep (`expire`) releases it after
         STOCK_RESERVATION_SECONDS

Reservations commit before the order is decided, so concurrent checkouts see
each other's units set aside. A product without a stock stream sells without
limit and is not reserved. Lines are reserved in SKU order, so two checkouts
wanting the same products queue in the same order.
"""

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import uuid4

from django.conf import settings
from django.utils import timezone

from . import commands as c
from .handler import installed
from .models import StockLevel
from .services import available

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reservation:
    """What one checkout set aside: its id (on every stock event it caused) and (sku, units) per line."""

    id: str
    lines: tuple[tuple[str, int], ...]


def reserve(lines: Iterable[tuple[str, int]], *, for_cart: str, actor: str) -> Reservation:
    """Set aside every tracked line's units, or none: raises `OutOfStockError` naming the first short SKU."""
    wanted = dict(lines)
    tracked = sorted(sku for sku in available(wanted))
    reservation = f"{for_cart}/{uuid4().hex[:12]}"
    now = timezone.now()
    expires_at = now + timedelta(seconds=settings.STOCK_RESERVATION_SECONDS)
    made: list[tuple[str, int]] = []
    try:
        for sku in tracked:
            command = c.Reserve(sku=sku, at=now, reservation=reservation, quantity=wanted[sku], expires_at=expires_at)
            installed().handle(command, actor=actor)
            made.append((sku, wanted[sku]))
    except BaseException:
        release(Reservation(reservation, tuple(made)), "another line of the checkout could not be reserved", actor)
        raise
    return Reservation(reservation, tuple(made))


def held_for_cart(cart_id: str, sku: str) -> datetime | None:
    """When the last of the cart's live reservations of `sku` lapses; None if the cart holds none of
    it (a reservation's id starts with its cart's: `reserve`)."""
    held = installed().load(sku).held
    mine = [units.expires_at for reservation, units in held.items() if reservation.startswith(f"{cart_id}/")]
    return max(mine, default=None)


def confirm(reservation: Reservation, order_id: str, *, actor: str) -> None:
    """In the order's transaction: the reserved units leave the stock (ReservationLostError if the sweep came first)."""
    for sku, _ in reservation.lines:
        command = c.Confirm(sku=sku, at=timezone.now(), reservation=reservation.id, order_id=order_id)
        installed().handle(command, actor=actor)


def release(reservation: Reservation, reason: str, actor: str) -> None:
    """Give the units back; what was confirmed or released already is left alone. Never raises: what it
    cannot release now (the database away), the sweep releases when the reservation expires."""
    for sku, _ in reservation.lines:
        try:
            installed().handle(
                c.Release(sku=sku, at=timezone.now(), reservation=reservation.id, reason=reason), actor=actor
            )
        except Exception as error:
            log.warning(
                "could not release %s of %s now (%s); the sweep will when it expires", reservation.id, sku, error
            )


def expire(now: datetime | None = None, *, actor: str = "expire_stock_reservations") -> list[str]:
    """Release every reservation whose time ran out: those of checkouts that died. The reservations released."""
    now = now or timezone.now()
    released = []
    for sku in StockLevel.objects.filter(reserved__gt=0).order_by("sku").values_list("sku", flat=True):
        outcome = installed().handle(c.ReleaseExpired(sku=sku, at=now), actor=actor)
        released += [f"{sku}:{event.data['reservation']}" for event in outcome.events]
    return released
