"""What `archive_events` and `run_spark_jobs` say when the operator's setup is wrong: one line naming
what to fix, exit status 1, no traceback, and nothing half-written.

Both used to end in a raw OSError or psycopg traceback: an archive folder that cannot be
written (a read-only mount, a path through a file) and a database that does not answer.
"""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from analytics import models as read_tables

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("command", ["archive_events", "run_spark_jobs"])
def test_an_archive_folder_that_cannot_be_written_is_named_with_its_setting(
    command: str, settings, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    settings.EVENT_ARCHIVE_PATH = str(blocker / "archive")  # mkdir fails as it would on a read-only mount

    with pytest.raises(CommandError) as refused:
        call_command(command, verbosity=0)

    message = str(refused.value)
    assert message.startswith(f"cannot write the event archive in {blocker / 'archive'} (EVENT_ARCHIVE_PATH): ")
    assert "Not a directory" in message
    assert "run again" in message
    assert read_tables.Summary.objects.count() == 0


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("command", ["archive_events", "run_spark_jobs"])
def test_a_database_that_does_not_answer_is_one_line_not_a_traceback(command: str, tmp_path: Path) -> None:
    # Nothing listens on the port: what an operator gets with PostgreSQL stopped. (run_spark_jobs
    # meets it in the pipeline lock's own psycopg session, archive_events in Django's connection.)
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://cartlog_app@127.0.0.1:{_closed_port()}/cartlog",
        "EVENT_ARCHIVE_PATH": str(tmp_path / "archive"),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", command],
        cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("CommandError: ")]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("CommandError: the database did not answer (connection failed: ")
    assert "Connection refused" in lines[0]
    assert lines[0].endswith("run again once the database answers")
