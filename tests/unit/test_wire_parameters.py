"""How a statement and its parameters are spelled for libpq (eventlog/stores/wire.py)."""

from datetime import UTC, date, datetime
from decimal import Decimal
from uuid import UUID

import pytest

from eventlog.stores.wire import as_text, numbered


def test_placeholders_are_numbered_in_order() -> None:
    assert numbered("SELECT %s, f(%s, %s::jsonb)") == "SELECT $1, f($2, $3::jsonb)"
    assert numbered("SELECT 1") == "SELECT 1"


def test_a_statement_with_another_percent_sign_is_refused() -> None:
    with pytest.raises(ValueError, match="placeholders"):
        numbered("SELECT %s WHERE name LIKE 'a%%'")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, None),
        ("café", b"caf\xc3\xa9"),
        (True, b"t"),
        (False, b"f"),
        (42, b"42"),
        (Decimal("12.50"), b"12.50"),
        (UUID("6025dc2d-00f6-4cc3-9f3e-0ce3a5724693"), b"6025dc2d-00f6-4cc3-9f3e-0ce3a5724693"),
        (datetime(2026, 11, 26, 15, 56, 10, 602965, tzinfo=UTC), b"2026-11-26T15:56:10.602965+00:00"),
        (date(2026, 11, 26), b"2026-11-26"),
    ],
)
def test_parameters_in_postgresqls_text_format(value: object, text: bytes | None) -> None:
    assert as_text(value) == text


def test_a_parameter_of_another_type_is_refused_not_guessed() -> None:
    with pytest.raises(TypeError, match="list"):
        as_text(["a"])
