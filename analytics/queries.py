"""Reads of the Spark-built views that the shop, the API and the staff page show.

Until the jobs have run, every read answers empty (zeros for the summary) and
pages hide their sections.
"""

from typing import Any

from catalog.models import Product
from eventlog import store

from . import models as read_tables
from . import run_lock

SUMMARY_FIELDS = (
    "carts_started", "carts_with_items", "carts_checked_out", "conversion_rate", "abandonment_rate", "revenue",
    "average_order_value", "covers_position", "computed_at",
)  # fmt: skip
# Only pairs bought together more often than chance; the Spark job filters the same way
# (spark_jobs/recommendations.py), this also hides rows loaded by an older run.
MIN_LIFT = 1.0
PRODUCT_RANKINGS = {"adds": "adds", "purchases": "purchased_quantity", "removed": "added_then_removed"}


def also_bought(sku: str, limit: int = 4) -> list[dict[str, Any]]:
    """Products bought together with `sku`: [{sku, name, price, confidence, lift, support}], best first.

    Recommended products no longer active in the catalog, and pairs with lift <= 1, are left out.
    """
    rows = list(read_tables.Recommendation.objects.filter(sku=sku, lift__gt=MIN_LIFT).order_by("rank"))
    products = Product.objects.filter(sku__in=[r.recommended_sku for r in rows], active=True).in_bulk()
    picked = [(row, products[row.recommended_sku]) for row in rows if row.recommended_sku in products][:limit]
    return [
        {"sku": p.sku, "name": p.name, "price": p.price, "support": r.support, "confidence": r.confidence,
         "lift": r.lift}
        for r, p in picked
    ]  # fmt: skip


def product_names(skus: set[str]) -> dict[str, str]:
    """{sku: name} of those products the catalog knows (inactive ones too: a past order's rule may name one)."""
    return dict(Product.objects.filter(sku__in=skus).values_list("sku", "name"))


def summary() -> dict[str, Any]:
    """The summary `GET /api/analytics/summary` answers; zeros, position 0 and no computed_at before the first run."""
    row = read_tables.Summary.objects.first()
    if row is None:
        zeros: dict[str, Any] = dict.fromkeys(SUMMARY_FIELDS, 0)
        rates = {"conversion_rate": 0.0, "abandonment_rate": 0.0}
        return {**zeros, **rates, "revenue": "0.00", "average_order_value": "0.00", "computed_at": None}
    return {name: getattr(row, name) for name in SUMMARY_FIELDS}


def run_state() -> dict[str, Any]:
    """Where the log is now and whether a run is refreshing the figures: beside a summary (read it first, so the
    head is never behind its covers_position), what tells figures of a minute ago from figures missing a day."""
    return {"log_head": store.head_position(), "run_in_progress": run_lock.in_progress()}


def top_products(by: str = "purchases", limit: int = 10) -> list[read_tables.ProductStats]:
    """Products ranked by adds, purchases (units) or removed (carts that added then removed it)."""
    order = PRODUCT_RANKINGS[by]
    return list(read_tables.ProductStats.objects.order_by(f"-{order}", "sku")[:limit])


def recommendations(sku: str | None = None) -> list[read_tables.Recommendation]:
    rows = read_tables.Recommendation.objects.filter(lift__gt=MIN_LIFT).order_by("sku", "rank")
    return list(rows.filter(sku=sku) if sku else rows)
