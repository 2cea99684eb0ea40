"""What an operator on call sees of a failing consumer or relay, with real processes.

Found by an operator restarting `run_consumers` after a wrong KAFKA_BOOTSTRAP_SERVERS: the new
process read every event, yet GET /api/projections, /health/ready and /metrics said every consumer
was failing, for as long as it ran. Only the process that wrote `failing` ever cleared it, and it
had exited; a process starts now believing its row may say so, and clears it on its first turn.
"""

import json
from pathlib import Path

import pytest
from django.conf import settings

from consumers import heartbeat
from consumers.models import Heartbeat
from ops import health
from tests.fault_helpers import start_manage, stop, wait_for
from tests.kafka_broker import Broker, free_port

from .test_archive import shop

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def failing(name: str) -> str:
    return Heartbeat.objects.filter(name=name).values_list("failing", flat=True).first() or ""


def left_failing_by_a_process_gone(name: str, transport: str, error: str) -> None:
    heartbeat.beat(name, transport)
    heartbeat.failing(name, error)
    assert failing(name) == error


def test_a_consumer_restarted_after_a_failure_says_it_works_again(catalog: None, tmp_path: Path) -> None:
    left_failing_by_a_process_gone(
        "order_history", "kafka", 'KafkaException: KafkaError{code=_TRANSPORT,val=-195,str="Failed to get metadata"}'
    )
    assert "order_history failing: KafkaException" in (health.consumers() or "")
    process = start_manage(["run_consumers", "--only", "order_history"], tmp_path / "consumers.log", "restarted")
    try:
        wait_for(lambda: failing("order_history") == "", what="the restarted consumer clearing 'failing'")
        assert Heartbeat.objects.get(name="order_history").failing_since is None
        assert "order_history failing" not in (health.consumers() or "")
    finally:
        assert stop(process) == 0


@pytest.mark.kafka
def test_a_relay_restarted_after_a_failure_says_it_works_again(catalog: None, kafka: Broker, tmp_path: Path) -> None:
    left_failing_by_a_process_gone("relay", "kafka", "DeliveryIncompleteError: confirmed up to position 0 of 3")
    env = {"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap, "KAFKA_TOPIC_PREFIX": settings.KAFKA_TOPIC_PREFIX}
    process = start_manage(["run_relay"], tmp_path / "relay.log", "restarted", **env)
    try:
        wait_for(lambda: failing("relay") == "", what="the restarted relay clearing 'failing'")
        assert Heartbeat.objects.get(name="relay").failing_since is None
    finally:
        assert stop(process) == 0


def json_records(log_file: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log_file.read_text().splitlines() if line.startswith("{")]


def said_in_one_line(log_file: Path, logger: str, words: str) -> bool:
    """A WARNING of `logger` holding `words`, and no record of it with a traceback (LOG_FORMAT=json)."""
    records = [r for r in json_records(log_file) if r["logger"] == logger]
    assert not [r for r in records if "exception" in r], "a traceback per retry buries the message at its end"
    return any(r["level"] == "WARNING" and words in str(r["message"]) for r in records)


def test_an_archive_folder_that_cannot_be_written_is_said_in_one_line_with_what_to_do(
    catalog: None, tmp_path: Path
) -> None:
    shop(1)  # events to archive
    (tmp_path / "a-file").write_text("not a folder")
    log_file = tmp_path / "consumers.log"
    process = start_manage(
        ["run_consumers", "--only", "archiver"], log_file, "archive-folder", LOG_FORMAT="json", LOG_LEVEL="INFO",
        EVENT_ARCHIVE_PATH=str(tmp_path / "a-file" / "archive"), ARCHIVE_CONSUMER_MIN_EVENTS="1",
    )  # fmt: skip
    try:
        wait_for(lambda: failing("archiver").startswith("ArchiveStorageError: "), what="the archiver failing")
        assert "make the folder writable" in failing("archiver")
        wait_for(lambda: said_in_one_line(log_file, "consumers.runner", "consumer archiver: cannot write the event"))
    finally:
        assert stop(process) == 0


def test_a_wrong_kafka_address_is_named_with_its_setting_by_the_consumers_and_the_relay(
    catalog: None, tmp_path: Path
) -> None:
    nobody = f"127.0.0.1:{free_port()}"  # nothing listens there
    env = {"KAFKA_BOOTSTRAP_SERVERS": nobody, "LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}
    consumers_log, relay_log = tmp_path / "consumers.log", tmp_path / "relay.log"
    processes = [
        start_manage(["run_consumers", "--only", "order_history"], consumers_log, "wrong-kafka", **env),
        start_manage(["run_relay"], relay_log, "wrong-kafka-relay", **env),
    ]
    named = f"Kafka at {nobody} (KAFKA_BOOTSTRAP_SERVERS): "
    try:
        wait_for(lambda: named in failing("order_history"), what="the consumer naming the broker")
        assert failing("order_history").startswith(f"BrokerUnavailableError: {named}")
        assert "check that the broker is up and that the setting names it" in failing("order_history")
        wait_for(lambda: said_in_one_line(consumers_log, "consumers.runner", f"consumer order_history: {named}"))
        wait_for(lambda: named in failing("relay"), what="the relay naming the broker")
        assert f"order_history failing: BrokerUnavailableError: {named}" in (health.consumers() or "")
        wait_for(lambda: said_in_one_line(relay_log, "relay.relay", f"relay: broker trouble: KafkaException: {named}"))
    finally:
        assert [stop(process) for process in processes] == [0, 0]
