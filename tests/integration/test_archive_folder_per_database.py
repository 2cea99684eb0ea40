"""Two shops beside each other (one checkout, one CARTLOG_VAR_DIR, two databases) archive into two folders.

Both archivers wrote to var/archive, and the second shop's every batch was refused with
ArchiveMismatchError ("holds up to position N of another log"): its archiver stayed `failing`.
Without EVENT_ARCHIVE_PATH the default folder now depends on the database
(cartlog/archive_folder.py): the embedded SQLite file keeps var/archive, another one gets its own.
Real `manage.py` processes, as an operator runs them; neither touches the test database.
"""

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from spark_jobs import archive_layout as layout

# What a shop's environment must not inherit from the test run: it names its own database, var
# folder and (by leaving it unset) archive.
NOT_INHERITED = ("DATABASE_URL", "MIGRATE_DATABASE_URL", "CARTLOG_VAR_DIR", "EVENT_ARCHIVE_PATH")


def manage(var_dir: Path, database_url: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in NOT_INHERITED}
    env |= {"CARTLOG_VAR_DIR": str(var_dir), "KAFKA_BOOTSTRAP_SERVERS": ""}
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def open_shop(var_dir: Path, database_url: str | None) -> None:
    """A migrated database whose log holds the demo catalog's events."""
    for command in (["migrate", "--no-input", "-v0"], ["seed_catalog"]):
        done = manage(var_dir, database_url, *command)
        assert done.returncode == 0, done.stderr


def test_two_shops_on_two_databases_with_one_var_dir_archive_into_two_folders(tmp_path: Path) -> None:
    var = tmp_path / "var"
    second = f"sqlite:///{tmp_path / 'second-shop.sqlite3'}"
    open_shop(var, None)  # the embedded default: var/cartlog.sqlite3
    open_shop(var, second)

    first_run = manage(var, None, "archive_events")
    second_run = manage(var, second, "archive_events")
    first_again = manage(var, None, "archive_events")

    assert second_run.returncode == 0, second_run.stderr
    assert f"archive {var / 'archive-second-shop'}: read " in second_run.stdout
    assert first_run.returncode == 0, first_run.stderr
    assert f"archive {var / 'archive'}: read " in first_run.stdout  # where it always was
    assert first_again.returncode == 0, first_again.stderr
    assert f"archive {var / 'archive'}: read 0, wrote 0 events" in first_again.stdout
    assert sorted(path.name for path in var.iterdir() if path.name.startswith("archive")) == [
        "archive",
        "archive-second-shop",
    ]
    first, other = layout.read_checkpoint(var / "archive"), layout.read_checkpoint(var / "archive-second-shop")
    assert first.position > 0 and other.position > 0
    assert first.last_event_id != other.last_event_id  # each holds its own log
