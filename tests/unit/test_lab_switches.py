"""Which switches the lab refuses where they cannot show what they claim (lab/switches.py)."""

import pytest

from lab.switches import BY_NAME, impossible_here

BROKER = "127.0.0.1:9092"


def test_holding_a_transaction_open_is_refused_on_sqlite_with_the_reason() -> None:
    reason = impossible_here(BY_NAME["hold"], "sqlite", BROKER)
    assert reason is not None and reason.startswith("holding a transaction open needs PostgreSQL")


def test_holding_a_transaction_open_is_allowed_on_postgresql() -> None:
    assert impossible_here(BY_NAME["hold"], "postgresql", BROKER) is None


@pytest.mark.parametrize("name", ["pause", "crash", "duplicate", "relay", "validator"])
def test_the_other_switches_work_on_both_databases(name: str) -> None:
    assert impossible_here(BY_NAME[name], "sqlite", BROKER) is None


@pytest.mark.parametrize("vendor", ["sqlite", "postgresql"])
def test_stopping_the_relay_is_refused_without_a_broker_with_the_reason(vendor: str) -> None:
    """Without Kafka nothing runs a relay: the switch would be on and nothing would stop."""
    reason = impossible_here(BY_NAME["relay"], vendor, "")
    assert reason is not None and reason.startswith("stopping the relay needs Kafka (KAFKA_BOOTSTRAP_SERVERS)")


@pytest.mark.parametrize("name", ["pause", "crash", "duplicate", "validator"])
def test_the_consumer_switches_work_without_a_broker(name: str) -> None:
    assert impossible_here(BY_NAME[name], "postgresql", "") is None


def test_the_duplicate_switch_names_what_refuses_the_repeat_on_each_transport() -> None:
    duplicate = BY_NAME["duplicate"]
    assert "refused by the checkpoint: its compare-and-set" in duplicate.explained("table")
    assert "partition" not in duplicate.explained("table")
    assert "refused by the consumer's progress per partition" in duplicate.explained("kafka")
    assert "checkpoint" not in duplicate.explained("kafka")


@pytest.mark.parametrize("name", ["pause", "crash", "hold", "relay", "validator"])
def test_the_other_explanations_are_the_same_on_both_transports(name: str) -> None:
    assert BY_NAME[name].explained("table") == BY_NAME[name].explained("kafka") == BY_NAME[name].explanation
