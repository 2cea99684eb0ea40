"""The staff page /staff/analytics/: the Spark-built views as figures, charts and tables."""

from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from projections import abandoned_carts, category_activity

from . import models, queries


def analytics_page(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.is_staff:
        raise PermissionDenied
    summary = queries.summary()
    page: dict[str, Any] = {"summary": summary, "charts": chart_data(), "top": top_tables(), "recs": recommendations()}
    # How fresh the figures are: the events appended since the run, and whether a run is refreshing them now.
    state = queries.run_state()
    page["log_head"] = head = state["log_head"]
    page["behind"] = max(head - summary["covers_position"], 0)
    page["running"] = state["run_in_progress"]
    page["conversion_percent"] = summary["conversion_rate"] * 100  # to a tenth, as SQL over the log gives it
    page["abandonment_percent"] = summary["abandonment_rate"] * 100
    page["category_activity"] = category_activity.rows()  # live, from a consumer, not from Spark
    page["abandoned"] = abandoned()
    return render(request, "analytics/analytics.html", page)


# Abandoned carts listed on the page, the most valuable first: a shop has hundreds (141 of 300 simulated carts),
# and the whole list pushed the recommendations thousands of pixels down. The API lists them all.
ABANDONED_LISTED = 10


def abandoned() -> dict[str, Any]:
    """Abandoned carts live (the consumer's view) beside the last Spark run's figure for the same rule."""
    live = abandoned_carts.abandoned_now()
    return {
        "live": live,
        "listed": live["carts"][:ABANDONED_LISTED],
        "batch": models.Abandonment.objects.first(),
        "after_minutes": settings.ABANDONED_CART_AFTER_SECONDS // 60,
        "lateness_minutes": settings.ABANDONED_CART_LATENESS_SECONDS // 60,
    }


def chart_data() -> dict[str, Any]:
    """What the charts plot, as JSON-ready lists (the page embeds it with json_script)."""
    funnel = list(models.FunnelDay.objects.all())
    revenue = list(models.RevenueDay.objects.all())
    hourly = list(models.HourlyActivity.objects.all())
    sessions = list(models.SessionDay.objects.all())
    checkout = list(models.CheckoutTime.objects.all())
    return {
        "funnel": {
            "labels": [str(r.day) for r in funnel],
            "started": [r.carts_started for r in funnel],
            "with_items": [r.carts_with_items for r in funnel],
            "checked_out": [r.carts_checked_out for r in funnel],
            "conversion": [round(r.conversion_rate * 100, 1) for r in funnel],
        },
        "revenue": {
            "labels": [str(r.day) for r in revenue],
            "revenue": [float(r.revenue) for r in revenue],
            "aov": [float(r.average_order_value) for r in revenue],
        },
        "checkout_time": {"labels": [r.label for r in checkout], "carts": [r.carts for r in checkout]},
        "hourly": {
            "labels": [r.window_start.strftime("%Y-%m-%d %H:00") for r in hourly],
            "events": [r.events for r in hourly],
            "checkouts": [r.checkouts for r in hourly],
        },
        "sessions": {
            "labels": [str(r.day) for r in sessions],
            "sessions": [r.sessions for r in sessions],
            "with_checkout": [r.sessions_with_checkout for r in sessions],
        },
    }


def top_tables() -> list[dict[str, Any]]:
    """The top five three ways, each naming what its figure counts (units, add events, carts)."""
    tables = {
        "purchases": ("Most purchased", "Units bought"),
        "adds": ("Most added", "Times added"),
        "removed": ("Most added then removed", "Carts"),
    }
    field = queries.PRODUCT_RANKINGS
    return [
        {
            "by": by,
            "title": title,
            "counts": counts,
            "rows": [(p.sku, p.name or "", getattr(p, field[by])) for p in queries.top_products(by, 5)],
        }
        for by, (title, counts) in tables.items()
    ]


def recommendations() -> list[tuple[models.Recommendation, str, str]]:
    """Each SKU's top recommendation, the ones with the most orders behind them first (a rule seen in one
    order has confidence 1 and says little), with the names of both products (a SKU alone says little too)."""
    top = (r for r in queries.recommendations() if r.rank == 1)
    rules = sorted(top, key=lambda r: (-r.support, -r.confidence, r.sku))[:15]
    names = queries.product_names({sku for r in rules for sku in (r.sku, r.recommended_sku)})
    return [(r, names.get(r.sku, ""), names.get(r.recommended_sku, "")) for r in rules]
