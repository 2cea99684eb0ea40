"""The Celery app, configured from Django settings (the `CELERY_*` names).

With `CELERY_BROKER_URL` unset, tasks run eagerly in the caller (the embedded
default); with it set, workers and beat on that broker run them. Beat runs the
analytics pipeline every `ANALYTICS_INTERVAL_SECONDS`, the coupon-hold sweep
every `COUPON_HOLD_SWEEP_SECONDS` and the stock-reservation sweep every
`STOCK_RESERVATION_SWEEP_SECONDS`.

An analytics run is never queued behind another: its message expires when the next is
due (a worker busy or away drops it, Celery logs "Discarding revoked task"), and beat
stamps it with the time it was sent, so that a run that waited while another ran is
skipped (analytics/run_lock.py); the lock keeps two from running at once.
"""

import logging
import os
import time
from typing import Any

from celery import Celery
from celery.signals import before_task_publish, celeryd_init, setup_logging, worker_shutting_down

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cartlog.settings")

app = Celery("cartlog")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Celery 6's default, said now: it cancels only acks_late tasks on a broker connection loss, and no cartlog
# task is one, so nothing changes but the 8-line pending-deprecation warning each broker outage logged.
app.conf.worker_cancel_long_running_tasks_on_connection_loss = True
app.autodiscover_tasks()

ANALYTICS_TASK = "analytics.tasks.run_analytics"
COUPON_HOLDS_TASK = "claims.tasks.expire_coupon_holds"
STOCK_RESERVATIONS_TASK = "inventory.tasks.expire_stock_reservations"


@app.on_after_configure.connect
def schedule_analytics(sender: Celery, **kwargs: Any) -> None:
    # Settings are read here, once Celery configures itself, not while this module is imported.
    from django.conf import settings

    interval = float(settings.ANALYTICS_INTERVAL_SECONDS)
    sender.add_periodic_task(interval, sender.signature(ANALYTICS_TASK), name="analytics pipeline", expires=interval)
    sender.add_periodic_task(
        float(settings.COUPON_HOLD_SWEEP_SECONDS), sender.signature(COUPON_HOLDS_TASK), name="coupon holds"
    )
    sender.add_periodic_task(
        float(settings.STOCK_RESERVATION_SWEEP_SECONDS),
        sender.signature(STOCK_RESERVATIONS_TASK),
        name="stock reservations",
    )


@before_task_publish.connect
def stamp_queued_at(sender: str | None = None, headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """An analytics run's message says when it was sent (in the sender's process: beat, or a caller)."""
    if sender == ANALYTICS_TASK and headers is not None:
        from analytics.tasks import QUEUED_AT

        headers.setdefault(QUEUED_AT, time.time())


@setup_logging.connect
def log_as_every_cartlog_process(loglevel: int | str | None = None, **kwargs: Any) -> None:
    """Worker and beat log through Django's LOGGING (LOG_FORMAT: plain, or one JSON object a line), not
    through a handler and format of Celery's own; `--loglevel` still sets the level."""
    from django.conf import settings
    from django.utils.log import configure_logging

    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)
    logging.captureWarnings(True)  # Python's warnings too: records of `py.warnings`, not text on stderr
    if loglevel:
        logging.getLogger().setLevel(loglevel)


@celeryd_init.connect
def worker_log_from_the_start(instance: Any = None, **kwargs: Any) -> None:
    """The worker's first lines in the project's format too: a warning it gives before it sets up its logging
    (running as root), and no banner under LOG_FORMAT=json (text, not a log record; the broker and the queues
    it shows are logged anyway). Beat's banner needs `celery -q beat`: no hook precedes it."""
    from django.conf import settings

    log_as_every_cartlog_process()
    if settings.LOG_FORMAT == "json" and instance is not None:
        instance.quiet = True
        instance.install_platform_tweaks = _shutdown_said_as_a_record(instance.install_platform_tweaks)


def _shutdown_said_as_a_record(install_platform_tweaks: Any) -> Any:
    """Celery's SIGTERM and SIGQUIT handlers print `worker: Warm shutdown (MainProcess)` with os.write, past
    any logging: the one text line of a worker under LOG_FORMAT=json. Install them again, silent, once Celery
    has (it does so after every hook a project gets); `said_as_a_record` logs the line instead."""
    from celery.apps import worker as celery_worker

    def install(worker: Any) -> None:
        install_platform_tweaks(worker)
        celery_worker.install_worker_term_handler(worker, verbose=False)
        celery_worker.install_worker_term_hard_handler(worker, verbose=False)

    return install


@worker_shutting_down.connect
def said_as_a_record(sig: str = "", how: str = "", **kwargs: Any) -> None:
    from django.conf import settings

    if settings.LOG_FORMAT == "json":  # under plain, Celery's own line has said it
        logging.getLogger("celery.worker").info("worker: %s shutdown (%s)", how, sig)
