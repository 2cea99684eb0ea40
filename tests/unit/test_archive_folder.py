"""The event archive's default folder, one per database (cartlog/archive_folder.py)."""

from pathlib import Path

import pytest

from cartlog.archive_folder import default_archive_folder

VAR = Path("/srv/cartlog/var")


def test_the_embedded_sqlite_database_keeps_var_archive() -> None:
    # DATABASE_URL unset: cartlog/settings.py's default, var/cartlog.sqlite3.
    assert default_archive_folder("sqlite:////srv/cartlog/var/cartlog.sqlite3", VAR) == VAR / "archive"


def test_a_relative_var_dir_and_its_embedded_database_keep_var_archive() -> None:
    assert default_archive_folder("sqlite:///var/cartlog.sqlite3", Path("var")) == Path("var/archive")


@pytest.mark.parametrize(
    ("url", "folder"),
    [
        ("sqlite:////srv/cartlog/var/second-shop.sqlite3", "archive-second-shop"),
        ("sqlite:////srv/shop2/shop.db", "archive-shop"),
        # A cartlog.sqlite3 in another folder is another database, not the embedded one.
        ("sqlite:////srv/elsewhere/cartlog.sqlite3", "archive-cartlog"),
        ("sqlite:///:memory:", "archive-memory"),
    ],
)
def test_another_sqlite_file_is_named_by_its_stem(url: str, folder: str) -> None:
    assert default_archive_folder(url, VAR) == VAR / folder


@pytest.mark.parametrize(
    ("url", "folder"),
    [
        ("postgres://cartlog_app@127.0.0.1:5432/cartlog", "archive-127.0.0.1-5432-cartlog"),
        ("postgresql://shop:secret@db.example.com:6543/shop_two", "archive-db.example.com-6543-shop_two"),
        # PostgreSQL's defaults filled in: the same database spelt without host or port shares the folder.
        ("postgres://cartlog_app@/cartlog", "archive-localhost-5432-cartlog"),
        ("postgres://localhost/cartlog", "archive-localhost-5432-cartlog"),
    ],
)
def test_a_postgresql_database_is_named_by_host_port_and_name(url: str, folder: str) -> None:
    assert default_archive_folder(url, VAR) == VAR / folder


def test_the_owner_and_the_runtime_role_share_the_folder_whatever_the_options() -> None:
    # One log, whichever role runs archive_events; application_name and sslmode change nothing.
    runtime = default_archive_folder("postgres://cartlog_app@db:5432/shop?application_name=consumers", VAR)
    owner = default_archive_folder("postgres://cartlog_owner:pw@db:5432/shop?sslmode=require", VAR)
    assert runtime == owner == VAR / "archive-db-5432-shop"


@pytest.mark.parametrize(
    ("url", "folder"),
    [
        ("postgres://db:5432/My%20Shop", "archive-db-5432-My-Shop"),
        ("postgres://db:5432/caf%C3%A9%2F..%2Fetc", "archive-db-5432-caf-..-etc"),
        ("postgres://%2Fvar%2Frun%2Fpostgresql/cartlog", "archive-var-run-postgresql-5432-cartlog"),
        ("postgres://[::1]:5433/cartlog", "archive-1-5433-cartlog"),
        ("sqlite:////tmp/shop%20(copy)%20%232.sqlite3", "archive-shop-copy-2"),  # /tmp/shop (copy) #2.sqlite3
    ],
)
def test_odd_characters_become_dashes_and_never_leave_var_dir(url: str, folder: str) -> None:
    chosen = default_archive_folder(url, VAR)
    assert chosen == VAR / folder
    assert chosen.parent == VAR
