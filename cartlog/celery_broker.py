"""Kombu's Redis transport for Celery, with the one change a worker needs to outlive its broker.

A worker that loses Redis while a message is still unacknowledged (a task just finished,
its ack failed with the connection) is meant to reconnect and go on. With Celery 5.7.0 and
kombu 5.7.0 it exits instead: on the connection error, Celery collects the connection
(closing its transport) and then closes it again; the second close closes the channel,
whose restore of the unacked message asks the closed transport for its address, and the
AttributeError that follows is not one of the connection errors that cleanup ignores
("Unrecoverable error: AttributeError('NoneType' object has no attribute 'hostname')").

Here a channel of a closed transport answers with a connection error instead, which that
cleanup ignores: the worker reconnects, and the message, still in Redis's unacked set, is
delivered again once the broker's visibility timeout has passed (the tasks are idempotent).
`tests/integration/test_faults_celery_worker.py` kills the broker right after a task.

Used when the broker is Redis (settings.CELERY_BROKER_TRANSPORT). Drop it once Celery or
kombu no longer closes a collected connection's channel.
"""

from typing import Any

from kombu.transport import redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(redis.Channel):  # type: ignore[misc]
    def _connparams(self, asynchronous: bool = False) -> Any:
        if self.connection.client is None:  # the transport was closed: nothing left to connect to
            raise RedisConnectionError("the broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(redis.Transport):  # type: ignore[misc]
    Channel = Channel
