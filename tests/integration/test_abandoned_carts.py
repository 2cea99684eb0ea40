"""Abandoned carts in event time: the same set live, replayed in any batches, rebuilt, and on Kafka.

The log (tests/abandoned_log.py) has event times out of order; the expected rows are
written by hand there. The rule: abandoned after 30 minutes of quiet before the watermark.
"""

from decimal import Decimal

import pytest
from django.db import connection, transaction

from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.models import Checkpoint, KafkaProgress
from consumers.transports import TableTransport
from eventlog import store
from projections import abandoned_carts
from projections.models import AbandonedCart
from tests.abandoned_log import (
    ABANDONED_AT_THE_END,
    CARTS,
    LOG,
    RECOVERED_AT_THE_END,
    minute,
    new_events,
    recorded,
)  # fmt: skip
from tests.log_helpers import wait_until_readable

pytestmark = [pytest.mark.django_db(transaction=True)]
NAMES = {cart_id: name for name, cart_id in CARTS.items()}


@pytest.fixture
def rule(settings):  # type: ignore[no-untyped-def]
    settings.ABANDONED_CART_AFTER_SECONDS = 30 * 60
    settings.ABANDONED_CART_LATENESS_SECONDS = 5 * 60
    return settings


def abandoned() -> list[tuple[str, Decimal, object]]:
    now = abandoned_carts.abandoned_now()
    return [(NAMES[c["cart_id"]], c["value"], c["last_activity_at"]) for c in now["carts"]]


def table_rows(table: str = abandoned_carts.TABLE) -> list[tuple[str, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} ORDER BY cart_id")
        return [tuple(str(v) for v in row) for row in cursor.fetchall()]


def apply_in_batches(sizes: list[int]) -> None:
    events, start = recorded(), 0
    for size in sizes:
        with transaction.atomic():
            abandoned_carts.apply(events[start : start + size])
        start += size
    assert start == len(LOG)


@pytest.mark.parametrize("sizes", [[15], [1] * 15, [4, 8, 3], [12, 1, 2]], ids=["one", "singles", "4-8-3", "12-1-2"])
def test_whatever_the_batches_the_abandoned_set_and_recoveries_are_the_hand_written_ones(rule, sizes) -> None:  # type: ignore[no-untyped-def]
    apply_in_batches(sizes)

    assert abandoned() == ABANDONED_AT_THE_END
    assert abandoned_carts.abandoned_now()["recovered"] == RECOVERED_AT_THE_END
    row = AbandonedCart.objects.get(cart_id=CARTS["B"])
    assert (row.item_count, row.value, row.last_activity_at, row.recoveries) == (3, Decimal("16.50"), minute(40), 1)


def test_delivering_a_batch_twice_changes_nothing(rule) -> None:  # type: ignore[no-untyped-def]
    apply_in_batches([15])
    once = table_rows()

    with transaction.atomic():
        abandoned_carts.apply(recorded()[10:])

    assert table_rows() == once


def test_a_straggler_later_than_the_lateness_shows_its_cart_as_abandoned_until_it_arrives(rule) -> None:  # type: ignore[no-untyped-def]
    # After event 12 (minute 40) the watermark is minute 35: A, quiet since minute 1, is
    # abandoned (1 + 30 <= 35). A's event of minute 29 arrives next, 11 minutes late, beyond
    # the 5 minutes of lateness: a false alarm, withdrawn when it arrives.
    abandoned_carts.apply(recorded()[:12])
    assert abandoned() == [("A", Decimal("20.00"), minute(1))]

    abandoned_carts.apply(recorded()[12:13])
    assert abandoned() == []


def test_a_straggler_within_the_lateness_raises_no_false_alarm(rule) -> None:  # type: ignore[no-untyped-def]
    # With 15 minutes of lateness the watermark after event 12 is minute 25: A (1 + 30 = 31)
    # is not yet abandoned when its straggler of minute 29 arrives.
    rule.ABANDONED_CART_LATENESS_SECONDS = 15 * 60
    abandoned_carts.apply(recorded()[:12])
    assert abandoned() == []

    abandoned_carts.apply(recorded()[12:])
    # The watermark ends at minute 55: A (29 + 30 = 59) is not abandoned yet either.
    assert abandoned() == []


def append_log() -> None:
    """The log appended for real, event by event in log order (positions follow LOG)."""
    versions = dict.fromkeys(CARTS, 0)
    for index, (name, _event, _minute) in enumerate(LOG):
        new = dict(new_events(name))[index]
        with transaction.atomic():
            store.append(f"cart-{CARTS[name]}", versions[name], [new])
        versions[name] += 1


def reset() -> None:
    AbandonedCart.objects.all().delete()
    Checkpoint.objects.filter(name=abandoned_carts.NAME).delete()
    KafkaProgress.objects.filter(consumer=abandoned_carts.NAME).delete()


def test_the_live_consumer_in_small_batches_equals_a_fold_from_zero(rule) -> None:  # type: ignore[no-untyped-def]
    append_log()
    wait_until_readable()
    consumer = ProjectionConsumer(abandoned_carts)
    while runner.process_batch(consumer, TableTransport(), limit=2):
        pass
    live = table_rows()
    assert abandoned() == ABANDONED_AT_THE_END

    AbandonedCart.objects.all().delete()  # the same rows again, folded from position 0 in one go
    with transaction.atomic():
        abandoned_carts.apply(store.read_all(0, 1000))
    assert table_rows() == live


@pytest.mark.kafka
@pytest.mark.postgres
def test_on_kafka_the_partitions_interleave_and_the_view_is_the_same(rule, kafka) -> None:  # type: ignore[no-untyped-def]
    from relay.kafka_transport import KafkaTransport
    from tests.kafka_helpers import drain_until, relay_everything

    append_log()
    wait_until_readable()
    runner.drain(ProjectionConsumer(abandoned_carts), TableTransport())
    on_table = table_rows()
    reset()
    relay_everything()
    transport = KafkaTransport()
    try:
        drain_until(ProjectionConsumer(abandoned_carts), transport, lambda: len(table_rows()) == len(CARTS))
        for _ in range(3):  # anything still queued is a repeat
            runner.process_batch(ProjectionConsumer(abandoned_carts), transport)
    finally:
        transport.close()
    assert table_rows() == on_table
    assert abandoned() == ABANDONED_AT_THE_END


def test_staff_read_the_abandoned_carts_at_the_position_the_view_covers(rule) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.test_analytics_api import api_client

    append_log()
    wait_until_readable()
    runner.drain(ProjectionConsumer(abandoned_carts), TableTransport())
    head = store.head_position()

    response = api_client(staff=True).get(f"/api/analytics/abandoned?min_position={head}")

    assert response.status_code == 200 and response["Cartlog-Position"] == str(head)
    assert response.json() == {
        "carts": [{"cart_id": CARTS["A"], "value": "30.00", "last_activity_at": "2026-03-01T09:29:00Z"}],
        "value": "30.00",
        "recovered": 2,
        "recovery_rate": 0.6667,
        "watermark": "2026-03-01T10:05:00Z",
        "covers_position": head,
    }


def test_shoppers_may_not_read_the_abandoned_carts(rule) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.test_analytics_api import api_client

    response = api_client(staff=False).get("/api/analytics/abandoned")

    assert response.status_code == 403 and response["Content-Type"] == "application/problem+json"


def test_the_staff_analytics_page_lists_the_abandoned_carts_and_the_recoveries(rule, client) -> None:  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import User

    apply_in_batches([15])
    client.force_login(User.objects.create_user("boss", password="x", is_staff=True))

    page = client.get("/staff/analytics/").content.decode()

    assert '<h2 id="abandoned-count">1</h2>' in page and '<h2 id="abandoned-recovered">2</h2>' in page
    assert f'<tr data-cart="{CARTS["A"]}">' in page and "2026-03-01 09:29" in page
