"""Which switches the lab refuses where they cannot show what they claim (lab/switches.py)."""

import pytest

from lab.switches import BY_NAME, impossible_here


def test_holding_a_transaction_open_is_refused_on_sqlite_with_the_reason() -> None:
    reason = impossible_here(BY_NAME["hold"], "sqlite")
    assert reason is not None and reason.startswith("holding a transaction open needs PostgreSQL")


def test_holding_a_transaction_open_is_allowed_on_postgresql() -> None:
    assert impossible_here(BY_NAME["hold"], "postgresql") is None


@pytest.mark.parametrize("name", ["pause", "crash", "duplicate", "relay", "validator"])
def test_the_other_switches_work_on_both_databases(name: str) -> None:
    assert impossible_here(BY_NAME[name], "sqlite") is None
