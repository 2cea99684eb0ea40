"""Where the event archive goes when EVENT_ARCHIVE_PATH is not set: a folder per database.

A settings helper (cartlog/settings.py calls it before Django starts): pure, no Django, no file access.
"""

import re
from pathlib import Path

import dj_database_url

# The embedded default database (cartlog/settings.py: DATABASE_URL unset), inside CARTLOG_VAR_DIR.
EMBEDDED_DATABASE = "cartlog.sqlite3"


def default_archive_folder(database_url: str, var_dir: Path) -> Path:
    """The archive folder of the shop on `database_url`: `var_dir/archive` for the embedded SQLite
    file (where it has always been: a shop on the defaults keeps its archive), else
    `var_dir/archive-<slug>`, the slug naming the database:

    - SQLite: the file's stem (`sqlite:////srv/shop2.sqlite3` -> `archive-shop2`);
    - a server: host, port and database name, with PostgreSQL's own defaults for a missing host
      (localhost) and port (5432), so two spellings of one database share a folder; the user and
      the options are left out, since the owner role and the runtime role archive the same log
      (`postgres://app@db:5432/shop?sslmode=require` -> `archive-db-5432-shop`);
    - any character but letters, digits, `.`, `_` and `-` becomes `-` (runs of them one `-`).

    Why: an archive holds one log, and the archiver refuses to add another log's events to it
    (analytics/archive.py: ArchiveMismatchError). With one folder for every database, a second
    shop beside the first (same checkout and CARTLOG_VAR_DIR, another DATABASE_URL) had its every
    batch refused. Two SQLite files of the same stem in different folders still share a folder
    (and the second is refused, loudly): set EVENT_ARCHIVE_PATH for one of them.
    """
    database = dj_database_url.parse(database_url)
    name = str(database.get("NAME") or "")
    if database["ENGINE"] == "django.db.backends.sqlite3":
        if Path(name) == var_dir / EMBEDDED_DATABASE:
            return var_dir / "archive"
        parts = [Path(name).stem]
    else:
        postgres = database["ENGINE"].startswith("django.db.backends.postgresql")
        host = str(database.get("HOST") or ("localhost" if postgres else ""))
        port = str(database.get("PORT") or (5432 if postgres else ""))
        parts = [host, port, name]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(part for part in parts if part)).strip("-")
    return var_dir / f"archive-{slug or 'database'}"
