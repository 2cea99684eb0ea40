"""A rebuild whose output goes to a file or a pipe (not a terminal) shows its progress while it runs.

rich draws its bar only when it stops when stderr is not a terminal, so
`rebuild_projection cart_view > rebuild.log 2>&1` (or a container's log) said
nothing until the rebuild ended. A real process, its stderr a pipe, read while
the rebuild runs.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from rebuilds.models import RebuildRun
from tests.processes import database_url

from .rebuild_support import shop

pytestmark = pytest.mark.django_db(transaction=True)


def test_progress_lines_come_while_the_rebuild_runs_when_stderr_is_not_a_terminal(seeded_catalog: None) -> None:
    shop(40, seed=13)
    command = ["rebuild_projection", "cart_view", "--batch-size", "5", "--pause", "0.3"]  # over 10 s, a line's interval
    env = {**os.environ, "DATABASE_URL": database_url()}
    rebuild = subprocess.Popen(
        [sys.executable, "manage.py", *command], cwd=Path(settings.BASE_DIR), env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert rebuild.stderr is not None
        deadline = time.monotonic() + 60
        while not (said := rebuild.stderr.readline()).startswith("rebuild cart_view: position "):
            assert said or rebuild.poll() is None, "the rebuild ended without a progress line"
            assert time.monotonic() < deadline
        run = RebuildRun.objects.get(projection="cart_view")
        assert rebuild.poll() is None and run.status == "building"  # said while it runs, not at its end
        assert " events/s" in said
    finally:
        rebuild.kill()
        rebuild.wait()
