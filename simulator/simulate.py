"""`simulate`: plan the shoppers from the catalog, then play them day by day, in either mode."""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from django.core.management import call_command
from django.db import connection

from catalog.models import Coupon, Product
from catalog.snapshot import ProductSnapshot

from .plan import PlanSettings, default_associations, plan_days
from .run_bulk import BulkWriter
from .run_commands import Tally, run_commands
from .shopper import Association


@dataclass(frozen=True, kw_only=True)
class SimulationResult:
    carts: int
    events: int
    rejected: int
    seconds: float
    mode: str
    backend: str
    associations: tuple[Association, ...] = ()

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


def simulate(
    *,
    carts: int,
    seed: int,
    days: int = 30,
    start: date = date(2026, 1, 1),
    associations: Sequence[Association] | None = None,
    bulk: bool = False,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Simulate `carts` shopping sessions over `days` days of event time from `start`.

    `progress(carts_done)` is called as the days are played.
    """
    if not Product.objects.exists():
        call_command("seed_catalog", verbosity=0)
    products = active_products()
    plan = PlanSettings(
        carts=carts, seed=seed, days=days, start=start, skus=tuple(sorted(products)),
        coupons=reusable_coupons(),
        associations=tuple(default_associations() if associations is None else associations),
    )  # fmt: skip
    _check_associations(plan)
    began = time.perf_counter()
    tally = _play_bulk(plan, products, progress) if bulk else _play_commands(plan, progress)
    return SimulationResult(
        carts=carts, events=tally.events, rejected=tally.rejected, seconds=time.perf_counter() - began,
        mode="bulk" if bulk else "commands", backend=connection.vendor, associations=plan.associations,
    )  # fmt: skip


def _play_commands(plan: PlanSettings, progress: Callable[[int], None] | None) -> Tally:
    tally, done = Tally(), 0
    for _, sessions in plan_days(plan):
        tally += run_commands(sessions)
        done += len(sessions)
        if progress:
            progress(done)
    return tally


def _play_bulk(
    plan: PlanSettings, products: dict[str, ProductSnapshot], progress: Callable[[int], None] | None
) -> Tally:
    writer, done = BulkWriter(products), 0
    try:
        for _, sessions in plan_days(plan):
            writer.write(sessions)
            done += len(sessions)
            if progress:
                progress(done)
    finally:
        tally = writer.close()
    return tally


def active_products() -> dict[str, ProductSnapshot]:
    rows = Product.objects.filter(active=True).values_list("sku", "price")
    return {sku: ProductSnapshot(sku=sku, price=price, active=True) for sku, price in rows}


def reusable_coupons() -> tuple[tuple[str, int], ...]:
    """Coupons any number of shoppers may use (one-time coupons need the claim validator)."""
    rows = Coupon.objects.filter(active=True, once=False).order_by("code").values_list("code", "percent")
    return tuple((code, int(percent)) for code, percent in rows)


def _check_associations(plan: PlanSettings) -> None:
    unknown = {sku for a in plan.associations for sku in (a.sku, a.also)} - set(plan.skus)
    if unknown:
        raise ValueError(f"associations name SKUs that are not active products: {', '.join(sorted(unknown))}")
