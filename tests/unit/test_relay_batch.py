"""A batch in flight (relay/relay.py): which positions the broker confirmed, from its delivery reports alone."""

from datetime import UTC, datetime
from uuid import uuid4

from confluent_kafka import KafkaError

from eventlog.records import RecordedEvent
from relay.contract import to_message
from relay.relay import Batch

AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class Report:
    """What a delivery report's message gives the relay: the value it sent."""

    def __init__(self, position: int) -> None:
        event = RecordedEvent(
            position=position, event_id=uuid4(), stream_id="cart-1", version=position, type="CartStarted",
            schema_version=1, data={}, metadata={}, occurred_at=AT, recorded_at=AT,
        )  # fmt: skip
        self.sent = to_message(event)[1]

    def value(self) -> bytes:
        return self.sent


def settled(positions: list[int], failing: set[int]) -> Batch:
    batch = Batch(after=1, positions=positions, waiting=len(positions))
    for position in reversed(positions):  # reports come in any order across partitions
        error = KafkaError(KafkaError._MSG_TIMED_OUT) if position in failing else None
        batch.on_delivery(error, Report(position))  # type: ignore[arg-type]
    assert batch.waiting == 0
    return batch


def test_a_batch_the_broker_confirmed_whole_settles_at_its_last_position() -> None:
    assert settled([3, 5, 9, 10], failing=set()).last_confirmed() == 10


def test_a_failed_delivery_stops_the_confirmed_run_just_before_it() -> None:
    assert settled([3, 5, 9, 10], failing={9}).last_confirmed() == 5
    assert settled([3, 5, 9, 10], failing={10, 5}).last_confirmed() == 3


def test_a_batch_whose_first_delivery_failed_confirms_nothing() -> None:
    batch = settled([3, 5, 9, 10], failing={3})
    assert batch.failed == [3]
    assert batch.last_confirmed() == batch.after == 1
