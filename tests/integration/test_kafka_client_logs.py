"""librdkafka's own lines reach Python's logging, in the service's format, not raw on stderr.

During a broker outage the relay and the Kafka consumers said nothing in their own words but
librdkafka's `%3|1795861910.217|FAIL|rdkafka#producer-1| ... Connect to ... failed` lines, written
by the C library straight to stderr: no timestamp format, no level an operator can filter, not
JSON under LOG_FORMAT=json. They now go to the `librdkafka` logger (relay/config.py).
"""

import logging
import time

import pytest
from confluent_kafka import Producer

from relay import config
from tests.kafka_broker import free_port


def test_a_producer_that_cannot_reach_its_broker_says_so_through_python_logging(
    settings, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    settings.KAFKA_BOOTSTRAP_SERVERS = f"127.0.0.1:{free_port()}"  # nothing listens there
    producer = Producer(config.producer())
    with caplog.at_level(logging.WARNING, logger="librdkafka"):
        deadline = time.monotonic() + 10
        while not caplog.records and time.monotonic() < deadline:
            producer.poll(0.2)  # librdkafka's lines are handed over when the client is polled
    refused = [r for r in caplog.records if r.name == "librdkafka" and "Connection refused" in r.getMessage()]
    assert refused and refused[0].levelno == logging.ERROR
    assert "|FAIL|" not in capfd.readouterr().err  # nothing written past the logging
