"""The archive's typed cart columns (spark_jobs/archive_layout.CART_COLUMNS): the values a job
would parse from `data`, read without parsing, and archives written before them still read."""

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from uuid import uuid4

import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession

from analytics import archive_files
from eventlog.records import RecordedEvent
from spark_jobs import archive_layout, common
from tests.spark_session import events_frame
from tests.unit.spark.test_spark_analytics import LOG

pytestmark = pytest.mark.spark

# Beside the shop's log: odd data a parse must survive (money as a number or with a third decimal,
# a count as text, an object where text is expected, no data at all).
ODD: list[tuple[str, str, dict[str, object], str]] = [
    ("cart-e", "CartStarted", {"owner": {"id": 7}}, "2026-01-03 10:00:00"),
    ("cart-e", "ItemAdded", {"sku": "BOK-001", "quantity": "2", "unit_price": 12.5}, "2026-01-03 10:01:00"),
    ("cart-e", "ItemAdded", {"sku": 42, "quantity": 1, "unit_price": "10.005"}, "2026-01-03 10:02:00"),
    ("cart-e", "CheckedOut", {"lines": [{"sku": "BOK-001"}, {"quantity": 3}], "total": "0"}, "2026-01-03 10:03:00"),
    ("cart-e", "CartNoted", {}, "2026-01-03 10:04:00"),
]


def typed(frame: DataFrame) -> list[tuple[object, ...]]:
    """CART_COLUMNS per event in position order, lines as dicts (as pyarrow and cart_values give them)."""

    def plain(*values: object) -> tuple[object, ...]:
        *fields, lines = values
        return (*fields, None if lines is None else [None if x is None else x.asDict() for x in lines])  # type: ignore[attr-defined]

    return [plain(*row) for row in frame.orderBy("position").select(*archive_layout.CART_COLUMNS).collect()]


def test_cart_values_are_what_the_jobs_parse_from_the_json(spark: SparkSession) -> None:
    events = events_frame(spark, LOG + ODD)
    carts = events.where(events.stream_id.startswith("cart-"))

    parsed = typed(common.with_cart_columns(carts))

    data = [row.data for row in carts.orderBy("position").select("data").collect()]
    assert parsed == [archive_layout.cart_values(json.loads(text)) for text in data]


def test_the_archiver_writes_the_typed_columns_for_cart_events_only() -> None:
    at = datetime(2026, 1, 1, 10, tzinfo=UTC)

    def event(position: int, stream: str, type_: str, data: dict[str, object]) -> RecordedEvent:
        return RecordedEvent(
            position=position, event_id=uuid4(), stream_id=stream, version=1, type=type_, schema_version=1,
            data=data, metadata={}, occurred_at=at, recorded_at=at,
        )  # fmt: skip

    table = archive_files.to_table(
        [
            event(1, "cart-a", "ItemAdded", {"sku": "BOK-001", "quantity": 2, "unit_price": Decimal("10.00")}),
            event(2, "claim-user-x", "UsernameClaimed", {"owner": "anon:9"}),
            event(3, "cart-a", "CheckedOut", {"lines": [{"sku": "BOK-001", "quantity": 2}], "total": Decimal("20")}),
        ]
    )

    assert table.schema.names == [*archive_layout.COLUMNS, *archive_layout.CART_COLUMNS]
    rows = table.select(list(archive_layout.CART_COLUMNS)).to_pylist()
    assert rows[0]["cart_sku"] == "BOK-001" and rows[0]["cart_quantity"] == 2
    assert rows[0]["cart_unit_price"] == Decimal("10.00")
    assert set(rows[1].values()) == {None}  # not a cart stream
    assert rows[2]["cart_total"] == Decimal("20.00")
    assert rows[2]["cart_lines"] == [{"sku": "BOK-001", "quantity": 2}]


def test_an_archive_typed_from_a_position_reads_the_older_events_parsed(spark: SparkSession, tmp_path: Path) -> None:
    events = events_frame(spark, LOG)
    root = tmp_path / "archive"
    # Positions 1-6 as an older archiver wrote them (no typed columns); 7-13 with them, where the typed
    # values say otherwise than `data` so that reading them (not parsing) shows.
    events.where("position <= 6").write.parquet(str(root / "events" / "event_date=2026-01-01"))
    later = common.with_cart_columns(events.where("position > 6"))
    later.withColumn("cart_owner", later.cart_owner.substr(1, 5)).write.parquet(
        str(root / "events" / "event_date=2026-01-02")
    )
    (root / "_checkpoint.json").write_text(json.dumps({"position": 13, "events": 13, "typed_from": 7}))

    read = common.cart_events(common.read_archive(spark, root))

    expected = common.cart_events(events).collect()
    owners = {row.position: row.owner for row in read.collect()}
    assert owners == {row.position: row.owner if row.position < 7 else row.owner and row.owner[:5] for row in expected}
    assert read.drop("owner").orderBy("position").collect() == sorted(
        common.cart_events(events).drop("owner").collect(), key=lambda row: row.position
    )


def test_an_archive_without_typed_from_is_parsed_whole(spark: SparkSession, tmp_path: Path) -> None:
    events = events_frame(spark, LOG)
    root = tmp_path / "archive"
    events.write.parquet(str(root / "events" / "event_date=2026-01-01"))
    (root / "_checkpoint.json").write_text(json.dumps({"position": 13, "events": 13}))

    read = common.cart_events(common.read_archive(spark, root)).orderBy("position").collect()

    assert read == common.cart_events(events).orderBy("position").collect()


def test_the_bench_generator_writes_the_archiver_schema(tmp_path: Path) -> None:
    from spark_jobs.sample_archive import catalog_path, generate

    generate(tmp_path, 1000, seed=1)

    [part, *_] = sorted((tmp_path / "events").glob("*/*.parquet"))
    assert pq.read_schema(part).names == [*archive_layout.COLUMNS, *archive_layout.CART_COLUMNS]
    assert archive_layout.read_checkpoint(tmp_path).typed_from == 1
    # and the catalog beside it, as analytics.pipeline exports it
    assert pq.read_schema(catalog_path(tmp_path)).names == common.CATALOG_SCHEMA.fieldNames()


def test_the_bench_generator_writes_a_small_archive_that_fills_up_before_its_last_day(tmp_path: Path) -> None:
    """Whole carts overshoot each day's share: 200 events are written before the last day comes."""
    from spark_jobs.sample_archive import generate

    written = generate(tmp_path, 200, seed=1)

    positions = sorted(
        p for part in (tmp_path / "events").glob("*/*.parquet") for p in pq.read_table(part)["position"].to_pylist()
    )
    assert written >= 200 and positions == list(range(1, written + 1))
    assert archive_layout.read_checkpoint(tmp_path).position == written


def test_an_archive_is_typed_when_no_event_it_reads_predates_the_typed_columns(tmp_path: Path) -> None:
    def checkpoint(**fields: int) -> None:
        (tmp_path / "_checkpoint.json").write_text(json.dumps({"position": 13, "events": 13, **fields}))

    checkpoint(typed_from=1)
    assert common.archive_is_typed(tmp_path)
    checkpoint(typed_from=7)
    assert not common.archive_is_typed(tmp_path)
    assert not common.archive_is_typed(tmp_path, through=6)  # positions 1-6 are parsed
    checkpoint()  # an archiver before typed columns: every event parsed
    assert not common.archive_is_typed(tmp_path)
