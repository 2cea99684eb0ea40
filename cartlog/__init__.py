# The Celery app is created with Django, so that @shared_task binds to it (Celery's Django pattern).
from .celery import app as celery_app

__all__ = ("celery_app",)
