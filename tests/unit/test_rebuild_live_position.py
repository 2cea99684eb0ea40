"""Which record says what an async view's live table holds: the consumer's heartbeat names its transport."""

import pytest

from rebuilds.live_position import KAFKA, TABLE, transport_of


@pytest.mark.parametrize(
    ("heartbeat", "checkpoint", "kafka_rows", "kafka_configured", "expected"),
    [
        (KAFKA, True, True, False, KAFKA),  # a checkpoint row a swap or an earlier table run left behind
        (TABLE, True, True, True, TABLE),  # Kafka rows from an earlier run on Kafka
        (None, True, False, True, TABLE),
        (None, False, True, False, KAFKA),
        (None, True, True, True, KAFKA),  # both, no heartbeat: run_consumers' default transport
        (None, True, True, False, TABLE),
        (None, False, False, True, None),  # no consumer of that name ever ran (the claims view)
    ],
)  # fmt: skip
def test_transport_of(
    heartbeat: str | None, checkpoint: bool, kafka_rows: bool, kafka_configured: bool, expected: str | None
) -> None:
    assert transport_of(heartbeat, checkpoint, kafka_rows, kafka_configured) == expected
