"""The Celery worker outlives an outage of PostgreSQL and of its broker: the same process, not
restarted, runs the next task once the service is back (the worker of `docker-compose.yml`,
which runs the analytics pipeline and rebuilds)."""

import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from uuid import uuid4

import pytest
from celery import Celery
from celery.result import AsyncResult
from kombu import Connection
from kombu.common import ignore_errors

from tests.fault_helpers import outage, report
from tests.integration.test_celery import archived_event_ids, logged_event_ids, shop, start_worker

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHARED_REDIS = "redis://127.0.0.1:6379/14"


def archive_on(broker: str, queue: str, timeout: float = 90) -> dict[str, object]:
    # Not the current app: shared tasks elsewhere in the suite must keep the eager project app.
    client = Celery("test-client", broker=broker, backend=broker, set_as_current=False)
    try:
        return client.send_task("analytics.tasks.archive_events", queue=queue).get(timeout=timeout)  # type: ignore[no-any-return]
    finally:
        client.close()


def test_the_worker_runs_the_next_task_after_a_database_outage(catalog: None, tmp_path: Path) -> None:
    def away(worker: subprocess.Popen[str]) -> None:
        outage(3.0)  # every session cut, the worker's included; no new one for 3 s

    outlives(away, "a database outage", broker=SHARED_REDIS, tmp_path=tmp_path)


def test_the_worker_runs_the_next_task_after_its_broker_was_away(catalog: None, tmp_path: Path) -> None:
    port = free_port()
    redis = [start_redis(port)]

    def away(worker: subprocess.Popen[str]) -> None:
        stop_redis(redis[0])
        time.sleep(3.0)  # the worker loses its broker connection and retries
        assert worker.poll() is None, f"the worker exited while its broker was away:\n{exited(worker)}"
        redis[0] = start_redis(port)

    try:
        output = outlives(away, "its broker came back", broker=f"redis://127.0.0.1:{port}/0", tmp_path=tmp_path)
    finally:
        stop_redis(redis[0])
    # Said once, in a line: the broker went away. Celery's 8-line pending-deprecation notice about cancelling
    # acks_late tasks on a connection loss (none of cartlog's is acks_late) came with it each time.
    assert "Connection to broker lost" in output
    assert "CPendingDeprecationWarning" not in output and "worker_cancel_long_running_tasks" not in output


def outlives(away: Callable[[subprocess.Popen[str]], None], what: str, *, broker: str, tmp_path: Path) -> str:
    """A worker archives the shop's events, `away(worker)` takes a service away and brings it
    back, and the same worker process archives what the shop did meanwhile; the worker's output."""
    shop(2)
    queue = f"test-outage-{uuid4().hex}"
    worker = start_worker(queue, archive=tmp_path / "archive", var=tmp_path / "var", broker=broker)
    try:
        assert archive_on(broker, queue)["written"] == 4

        away(worker)
        shop(1)
        began = time.monotonic()
        second = archive_on(broker, queue)
        report(f"celery worker: first task after {what} done in {time.monotonic() - began:.2f} s")

        assert worker.poll() is None, "the worker exited"
        assert second["written"] == 2
    finally:
        worker.terminate()
        output = worker.communicate(timeout=30)[0]
    assert archived_event_ids(tmp_path / "archive") == logged_event_ids(), output
    return output


@pytest.mark.parametrize("transport", ["cartlog.celery_broker:Transport", "redis"])
def test_a_lost_connection_with_a_message_unacked_closes_without_an_error_only_on_the_fixed_transport(
    transport: str,
) -> None:
    """The state Celery 5.7.0's worker can reach when the broker goes away right after a task
    (the test above, now and then): a message delivered and not acked, the connection's
    transport closed by `collect()` before its channel was. Closing the connection then must
    raise nothing cleanup does not ignore; on kombu's own transport it does, and the worker
    exits (cartlog/celery_broker.py)."""
    port = free_port()
    redis = start_redis(port)
    connection = Connection(f"redis://127.0.0.1:{port}/0", transport=transport)
    try:
        queue = connection.SimpleQueue(f"test-unacked-{uuid4().hex}")
        queue.put({"task": 1})
        queue.get(timeout=5)  # delivered, not acked: restored to the queue when its channel closes
        stop_redis(redis)
        connection._do_close_transport()  # what collect() leaves when closing the channel timed out
        if transport == "redis":  # the negative control: kombu's own transport fails this way
            with pytest.raises(AttributeError, match="hostname"):
                ignore_errors(connection, connection.close)
        else:
            ignore_errors(connection, connection.close)  # a connection error inside, ignored
    finally:
        stop_redis(redis)


def exited(worker: subprocess.Popen[str]) -> str:
    """The end of what an exited worker printed, for the failure message."""
    return worker.communicate(timeout=30)[0][-4000:]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(port: int) -> subprocess.Popen[bytes]:
    """A Redis of this test's own (the shared one on 6379 serves the rest of the suite), nothing on disk."""
    binary = shutil.which("redis-server")
    assert binary, "redis-server is not installed (scripts/setup.sh installs it)"
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            assert time.monotonic() < deadline, "the test's Redis did not start"
            time.sleep(0.05)


def stop_redis(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


def test_a_sweep_failed_by_a_database_outage_is_one_warning_line_in_the_workers_log(
    catalog: None, tmp_path: Path
) -> None:
    """Beat runs the sweeps every minute; through an outage each failed with an ERROR and a 5 KB traceback
    (ops/logs.py: TaskOutageNoise). It runs again at the next tick, so one WARNING line says enough."""
    queue, log = f"test-sweep-outage-{uuid4().hex}", tmp_path / "worker.log"
    worker = start_worker(queue, archive=tmp_path / "archive", var=tmp_path / "var", broker=SHARED_REDIS, log=log)
    client = Celery("test-client", broker=SHARED_REDIS, backend=SHARED_REDIS, set_as_current=False)
    try:
        assert client.send_task("claims.tasks.expire_coupon_holds", queue=queue).get(timeout=90) == []
        sent: list[AsyncResult] = []

        def send_during_the_outage() -> None:
            time.sleep(1.0)  # the worker's connection cut by then, and no new one allowed
            sent.append(client.send_task("claims.tasks.expire_coupon_holds", queue=queue))

        sender = threading.Thread(target=send_during_the_outage)
        sender.start()
        outage(8.0)  # here: it needs this test's own session, the one it does not cut
        sender.join()
        [failed] = sent
        failed.get(timeout=60, propagate=False)
        assert failed.state == "FAILURE"
        assert client.send_task("claims.tasks.expire_coupon_holds", queue=queue).get(timeout=60) == []  # back
    finally:
        client.close()
        worker.terminate()
        worker.wait(timeout=30)
    text = log.read_text()
    [said] = [line for line in text.splitlines() if "raised unexpected" in line]
    assert " WARNING celery.app.trace: " in said and "OperationalError" in said, said
    assert "Traceback" not in text, text[-3000:]
