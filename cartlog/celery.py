"""The Celery app, configured from Django settings (the `CELERY_*` names).

With `CELERY_BROKER_URL` unset, tasks run eagerly in the caller (the embedded
default); with it set, workers and beat on that broker run them. Beat runs the
analytics pipeline every `ANALYTICS_INTERVAL_SECONDS`, the coupon-hold sweep
every `COUPON_HOLD_SWEEP_SECONDS` and the stock-reservation sweep every
`STOCK_RESERVATION_SWEEP_SECONDS`.
"""

import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")

app = Celery("cartlog")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

ANALYTICS_TASK = "analytics.tasks.run_analytics"
COUPON_HOLDS_TASK = "claims.tasks.expire_coupon_holds"
STOCK_RESERVATIONS_TASK = "inventory.tasks.expire_stock_reservations"


@app.on_after_configure.connect
def schedule_analytics(sender: Celery, **kwargs: Any) -> None:
    # Settings are read here, once Celery configures itself, not while this module is imported.
    from django.conf import settings

    sender.add_periodic_task(
        float(settings.ANALYTICS_INTERVAL_SECONDS), sender.signature(ANALYTICS_TASK), name="analytics pipeline"
    )
    sender.add_periodic_task(
        float(settings.COUPON_HOLD_SWEEP_SECONDS), sender.signature(COUPON_HOLDS_TASK), name="coupon holds"
    )
    sender.add_periodic_task(
        float(settings.STOCK_RESERVATION_SWEEP_SECONDS),
        sender.signature(STOCK_RESERVATIONS_TASK),
        name="stock reservations",
    )
