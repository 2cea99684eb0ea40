"""Pointing a real subprocess (manage.py, a Celery worker) at the pytest test database."""

from django.db import connection


def database_url() -> str:
    """DATABASE_URL of the database this test runs against."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
