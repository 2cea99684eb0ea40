"""Settings that refuse to run insecurely: no secret key without DEBUG; compose's
environment passes `check --deploy`; throttle counters in a cache every worker shares."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SECURE_"))}
    return {**keep, "DJANGO_SETTINGS_MODULE": "cartlog.settings", **extra}


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_settings_refuse_to_load_without_a_secret_key_when_debug_is_off() -> None:
    result = run_python("import django; django.setup()", clean_env())
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_settings_load_with_a_key_or_with_debug_on() -> None:
    assert run_python("import django; django.setup()", clean_env(DJANGO_SECRET_KEY="k" * 50)).returncode == 0
    assert run_python("import django; django.setup()", clean_env(DJANGO_DEBUG="1")).returncode == 0


def compose_environment() -> dict[str, str]:
    """x-cartlog-env of docker-compose.yml with each ${VAR:-default} at its default."""
    env = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["x-cartlog-env"]
    given = {"DJANGO_SECRET_KEY": "compose-like-" + "s3cR3t-" * 8, "POSTGRES_PASSWORD": "x"}

    def resolve(value: object) -> str:
        def one(match: re.Match[str]) -> str:
            name, op, default = match.group(1), match.group(2), match.group(3)
            return given.get(name, default if op == ":-" else "")

        return re.sub(r"\$\{([A-Z_]+)(:[-?])([^}]*)\}", one, str(value))

    return {name: resolve(value) for name, value in env.items()}


@pytest.mark.slow
def test_check_deploy_is_clean_with_composes_environment() -> None:
    env = clean_env(**compose_environment())
    env["DATABASE_URL"] = "sqlite:////tmp/cartlog-check-deploy.sqlite3"  # check --deploy reads no data
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
