"""The consumer status on both transports: lag over the categories a consumer reads, and the
archiver's batching said as what its next write waits for, not as lag."""

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from analytics.archive_consumer import ArchiveConsumer
from claims import services as claims
from consumers import runner, status
from consumers.base import ProjectionConsumer
from consumers.transports import TableTransport
from eventlog import store
from projections import product_activity
from relay import config
from relay.kafka_transport import KafkaTransport
from relay.topics import partition_for
from spark_jobs import archive_layout as layout
from tests.integration.test_archive import logged, shop
from tests.integration.test_kafka_relay import shop as kafka_shop
from tests.kafka_broker import Broker
from tests.kafka_helpers import drain_until, read_topic, relay_everything
from tests.log_helpers import wait_until_readable

pytestmark = pytest.mark.django_db(transaction=True)


def row(name: str) -> dict[str, Any]:
    return next(r for r in status.overview([], [product_activity.NAME]) if r["name"] == name)


def test_the_archiver_says_how_many_events_or_until_when_its_next_write_waits_and_shows_no_lag(
    catalog: None, settings: Any, tmp_path: Path
) -> None:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    settings.ARCHIVE_CONSUMER_MIN_EVENTS, settings.ARCHIVE_CONSUMER_MAX_DELAY_SECONDS = 1_000, 300
    shop(2)  # 7 events: 3 of an open cart, 4 of a checked-out one
    positions = [position for position, _ in logged()]
    assert positions == list(range(positions[0], positions[0] + 7))
    runner.drain(ArchiveConsumer(), TableTransport(), limit=3)  # the first batch starts the archive; 4 wait

    written = layout.read_checkpoint(tmp_path / "archive")
    assert written.position == positions[2] and written.updated_at is not None
    after = datetime.fromisoformat(written.updated_at) + timedelta(seconds=300)
    archiver = row("archiver")
    assert archiver["waiting"] == f"waiting for 996 events or {after:%Y-%m-%d %H:%M:%S} UTC"
    assert (archiver["checkpoint"], archiver["head"]) == (positions[2], positions[6])
    assert (archiver["lag_events"], archiver["lag_seconds"]) == (0, 0.0)
    assert row(product_activity.NAME)["waiting"] is None


def test_an_archiver_not_handed_the_newest_events_yet_shows_them_as_lag(
    catalog: None, settings: Any, tmp_path: Path
) -> None:
    settings.EVENT_ARCHIVE_PATH = str(tmp_path / "archive")
    settings.ARCHIVE_CONSUMER_MIN_EVENTS = 1_000
    shop(1)  # 3 events
    runner.drain(ArchiveConsumer(), TableTransport(), limit=3)
    assert row("archiver")["waiting"] is None  # everything handed in is written: nothing pending
    shop(1)
    archiver = row("archiver")
    assert (archiver["lag_events"], archiver["waiting"]) == (3, None)


@pytest.mark.kafka
@pytest.mark.postgres
def test_on_kafka_a_consumer_that_applied_every_cart_event_shows_no_lag_while_claims_arrive(
    catalog: None, kafka: Broker
) -> None:
    kafka_shop(4)
    relay_everything()
    carts_head = store.head_position()
    consumer, transport = ProjectionConsumer(product_activity), KafkaTransport()
    try:
        drain_until(consumer, transport, lambda: row(product_activity.NAME)["checkpoint"] == carts_head)
        for n in range(5):  # events of a category product_activity does not read, relayed like the rest
            claims.request("username", f"grace{n}", claimant=f"signup:{n}")
        relay_everything()
        wait_until_readable()
        for _ in range(3):  # nothing of its own arrives: the claims are on a topic it does not read
            runner.process_batch(consumer, transport)
    finally:
        transport.close()
    shown = row(product_activity.NAME)
    assert store.head_position() == carts_head + 5
    assert (shown["transport"], shown["checkpoint"], shown["head"]) == ("kafka", store.head_position(), carts_head + 5)
    assert (shown["lag_events"], shown["lag_seconds"]) == (0, 0.0)


@pytest.mark.kafka
@pytest.mark.postgres
def test_every_event_lies_in_the_partition_partition_for_names(catalog: None, kafka: Broker) -> None:
    kafka_shop(6)
    relay_everything()
    messages = read_topic(config.topic("cart"))
    assert len(messages) == 6 * 5
    assert all(m.partition() == partition_for(m.key().decode()) for m in messages)
