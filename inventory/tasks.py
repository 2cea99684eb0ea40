"""Celery task: the periodic sweep of lapsed stock reservations (beat runs it every STOCK_RESERVATION_SWEEP_SECONDS)."""

from celery import shared_task

from .reservations import expire


@shared_task
def expire_stock_reservations() -> list[str]:
    """Release every lapsed reservation; what was released. Idempotent, so overlapping runs are harmless."""
    return expire()
