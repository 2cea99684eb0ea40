"""`run_spark_jobs` without a Java it can start: one line naming JAVA_HOME, exit status 1, no traceback.

docs/analytics.md promises that what an operator has to fix ends the command with one line; a JAVA_HOME
pointing nowhere (or no Java installed) ended it in 30 lines of PySpark traceback ending in
"[JAVA_GATEWAY_EXITED] Java gateway process exited before sending its port number".
A subprocess: in this process a test may already have started Spark's JVM, which would be reused.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from analytics import models as read_tables
from tests.processes import database_url

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]


def test_a_java_home_that_starts_no_java_is_one_line_naming_it(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "EVENT_ARCHIVE_PATH": str(tmp_path / "archive"),
        "JAVA_HOME": str(tmp_path / "no-java"),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "run_spark_jobs"],
        cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("CommandError: ")]
    assert lines == [
        f"CommandError: Spark could not start its Java VM (JAVA_HOME={tmp_path / 'no-java'}; the lines above say "
        "why): install Java 17 or set JAVA_HOME to one; nothing was half-written: the views keep the rows of "
        "the last run that finished; run again once Java starts"
    ], done.stderr
    assert read_tables.Summary.objects.count() == 0
