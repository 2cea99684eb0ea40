"""A wait for the broker's metadata (relay/topics.py: metadata) ends when the process stops.

librdkafka's own wait cannot be interrupted: `run_consumers` at an address where nothing listens held
a SIGTERM for the whole metadata timeout (15 s). Here the timeout is an hour: only `stop` can end it.
"""

import socket
import threading

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from relay.topics import metadata


def nobody() -> str:
    """An address where nothing listens (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def client() -> AdminClient:
    return AdminClient({"bootstrap.servers": nobody(), "log_level": 0})


def test_a_stop_set_before_the_wait_ends_it_after_one_try_with_librdkafkas_words() -> None:
    stop = threading.Event()
    stop.set()
    with pytest.raises(KafkaException, match="Failed to get metadata"):
        metadata(client(), timeout=3600, stop=stop)


def test_a_stop_set_during_the_wait_ends_it() -> None:
    stop, failed = threading.Event(), list[BaseException]()

    def wait() -> None:
        try:
            metadata(client(), timeout=3600, stop=stop)
        except KafkaException as error:
            failed.append(error)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(timeout=1.5)  # a few of its slices: still waiting
    assert waiter.is_alive()
    stop.set()
    waiter.join(timeout=60)
    assert not waiter.is_alive() and len(failed) == 1


def test_without_a_stop_the_wait_ends_at_its_timeout() -> None:
    with pytest.raises(KafkaException):
        metadata(client(), timeout=1.0)
