"""Pointing a real subprocess (manage.py, a Celery worker) at the pytest test database."""

import os
from pathlib import Path

from django.db import connection


def database_url() -> str:
    """DATABASE_URL of the database this test runs against."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def gunicorn_env(metrics_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a real gunicorn serving the test database: the test run's own Django,
    Kafka, Celery and log settings left out, its own metrics folder, and `extra`."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "KAFKA_", "CELERY_", "LOG_"))}
    return {
        **inherited, "DATABASE_URL": database_url(), "DJANGO_SECRET_KEY": "test-only",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1", "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), **extra,
    }  # fmt: skip
