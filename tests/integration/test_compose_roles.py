"""Compose connects with the two roles of docs/reliability.md, and its init script makes them.

Only the one-shot `migrate` service connects as the owner, and it gives the
runtime role its rights right after migrating; every long-running process
connects as the runtime role, none as the superuser. The init script the
postgres image runs is run for real against a throwaway cluster.
"""

import os
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from tests.integration.test_deployment_files import cartlog_services, project  # noqa: F401  (fixture)
from tests.pg_cluster import Cluster, migrate

ROOT = Path(__file__).resolve().parents[2]
INIT_SCRIPT = "docker/postgres/init-roles.sh"


def test_only_migrate_connects_as_the_owner_and_it_grants_the_runtime_role(project: dict[str, Any]) -> None:  # noqa: F811
    postgres = project["services"]["postgres"]["environment"]
    services = cartlog_services(project)
    owner = urlsplit(services["migrate"]["environment"]["DATABASE_URL"])
    assert (owner.username, owner.password) == ("cartlog_owner", postgres["CARTLOG_OWNER_PASSWORD"])
    command = " ".join(services["migrate"]["command"])
    assert "manage.py migrate --no-input && python manage.py grant_runtime_role cartlog_app &&" in command
    for name, service in services.items():
        if name != "migrate":
            runtime = urlsplit(service["environment"]["DATABASE_URL"])
            assert (runtime.username, runtime.password) == ("cartlog_app", postgres["CARTLOG_APP_PASSWORD"]), name
            assert runtime.username != postgres["POSTGRES_USER"], name


def test_the_postgres_image_runs_the_init_script(project: dict[str, Any]) -> None:  # noqa: F811
    mounts = {v["target"]: v for v in project["services"]["postgres"]["volumes"]}
    script = mounts["/docker-entrypoint-initdb.d/10-cartlog-roles.sh"]
    assert (script["type"], script["read_only"]) == ("bind", True)
    assert Path(script["source"]) == ROOT / INIT_SCRIPT


@pytest.mark.postgres
def test_the_init_script_makes_roles_that_migrate_and_then_cannot_truncate(pg_cluster: Cluster) -> None:
    pg_cluster.sql("CREATE DATABASE cartlog")  # as the image does from POSTGRES_DB
    env = {
        **os.environ, "POSTGRES_USER": "postgres", "POSTGRES_DB": "cartlog", "PGHOST": "127.0.0.1",
        "PGPORT": str(pg_cluster.port), "CARTLOG_OWNER_PASSWORD": "o'wner", "CARTLOG_APP_PASSWORD": "app",
        "PATH": f"{pg_cluster.bin}:{os.environ['PATH']}",
    }  # fmt: skip
    subprocess.run(["sh", str(ROOT / INIT_SCRIPT)], env=env, check=True, capture_output=True, timeout=60)
    assert (
        pg_cluster.sql("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'cartlog'") == "cartlog_owner"
    )
    migrate(pg_cluster, "cartlog")
    with (
        psycopg.connect(pg_cluster.url("cartlog", "cartlog_app")) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("TRUNCATE eventlog_event")
