"""Celery task: the periodic sweep of lapsed coupon holds (beat runs it every COUPON_HOLD_SWEEP_SECONDS)."""

from celery import shared_task

from .holds import expire_holds


@shared_task
def expire_coupon_holds() -> list[str]:
    """Release every lapsed hold; the claim ids released. Idempotent, so overlapping runs are harmless."""
    return expire_holds()
