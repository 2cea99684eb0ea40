"""Throwaway PostgreSQL databases for the benchmarks, made fresh on every run.

Each run drops and recreates its databases, so rounds never inherit a bigger
table or a warmer cache from a previous run. The server is the one the tests
use (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres).
"""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
SERVER_URL = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def url_for(dbname: str) -> str:
    parts = urlsplit(SERVER_URL)
    return urlunsplit(parts._replace(path=f"/{dbname}"))


def recreate(dbname: str) -> str:
    """Drop `dbname` (ending its sessions) and create it empty; returns its URL."""
    with psycopg.connect(SERVER_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{dbname}"')
    return url_for(dbname)


def migrate_cartlog(url: str) -> None:
    """The cartlog schema and the demo catalog, as `manage.py` makes them."""
    env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "WARNING"}
    for args in (["migrate", "--no-input", "-v0"], ["seed_catalog"]):
        subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def create_ceiling_table(url: str) -> None:
    """A plain table with no triggers, no functions: the database's own ceiling."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_plain_insert ("
            " id bigserial PRIMARY KEY, stream text NOT NULL, body jsonb NOT NULL,"
            " created_at timestamptz NOT NULL DEFAULT now())"
        )
