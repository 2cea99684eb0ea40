"""What every job shares: the session, the archive and catalog readers, and the cart events parsed once.

The archive layout is analytics/archive_files.py's contract: hive-partitioned
Parquet under `<archive>/events/event_date=.../`, and `<archive>/_checkpoint.json`
with the last log position it holds. Readers keep only events up to that
checkpoint, so a job never sees a part file an archiver is still acknowledging
and `covers_position` is exact.
"""

import argparse
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from pyspark import SparkConf, StorageLevel
from pyspark.sql import Column, DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from carts import streams as cart_streams

from . import archive_layout, class_archive

DEFAULT_MASTER = "local[*]"
MONEY = T.DecimalType(12, 2)

EVENT_SCHEMA = T.StructType(
    [
        T.StructField("position", T.LongType()),
        T.StructField("event_id", T.StringType()),
        T.StructField("stream_id", T.StringType()),
        T.StructField("version", T.IntegerType()),
        T.StructField("type", T.StringType()),
        T.StructField("schema_version", T.IntegerType()),
        T.StructField("data", T.StringType()),
        T.StructField("metadata", T.StringType()),
        T.StructField("occurred_at", T.TimestampType()),
        T.StructField("recorded_at", T.TimestampType()),
    ]
)
# archive_layout.CART_COLUMNS, as analytics/archive_files.SCHEMA writes them.
CART_SCHEMA = T.StructType(
    [
        T.StructField("cart_owner", T.StringType()),
        T.StructField("cart_sku", T.StringType()),
        T.StructField("cart_quantity", T.IntegerType()),
        T.StructField("cart_unit_price", MONEY),
        T.StructField("cart_from_quantity", T.IntegerType()),
        T.StructField("cart_to_quantity", T.IntegerType()),
        T.StructField("cart_total", MONEY),
        T.StructField(
            "cart_lines",
            T.ArrayType(
                T.StructType([T.StructField("sku", T.StringType()), T.StructField("quantity", T.IntegerType())])
            ),
        ),
    ]
)
ARCHIVE_SCHEMA = T.StructType([*EVENT_SCHEMA.fields, *CART_SCHEMA.fields])
CATALOG_SCHEMA = T.StructType(
    [
        T.StructField("sku", T.StringType()),
        T.StructField("name", T.StringType()),
        T.StructField("category", T.StringType()),
        T.StructField("price", MONEY),
    ]
)
# The union of the cart events' data fields (carts/events.py); money travels as decimal strings.
CART_DATA_SCHEMA = T.StructType(
    [
        T.StructField("owner", T.StringType()),
        T.StructField("sku", T.StringType()),
        T.StructField("quantity", T.IntegerType()),
        T.StructField("unit_price", T.StringType()),
        T.StructField("from_quantity", T.IntegerType()),
        T.StructField("to_quantity", T.IntegerType()),
        T.StructField("order_id", T.StringType()),
        T.StructField("total", T.StringType()),
        T.StructField(
            "lines",
            T.ArrayType(
                T.StructType(
                    [
                        T.StructField("sku", T.StringType()),
                        T.StructField("quantity", T.IntegerType()),
                        T.StructField("unit_price", T.StringType()),
                        T.StructField("line_total", T.StringType()),
                    ]
                )
            ),
        ),
    ]
)


def spark_session(app_name: str = "cartlog", master: str | None = None, **conf: str) -> SparkSession:
    """A session in UTC (event days are UTC days) on `master_for(master)`; the caller stops it when done.

    Shuffles are sized to the cluster (`size_shuffles`) unless `conf` sets them.
    """
    builder = (
        SparkSession.builder.appName(app_name)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.showConsoleProgress", "false")
    )
    chosen = master_for(master)
    if chosen is not None:
        builder = builder.master(chosen)
    for key, value in {**PERFORMANCE, **conf}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    if SHUFFLE_PARTITIONS not in conf:
        size_shuffles(session)
    return session


def quiet_logger(session: SparkSession, name: str) -> None:
    """Only errors from the driver JVM's log4j logger `name`, whatever log4j configuration is in effect.

    For a warning a job causes on purpose and knows about; every other logger keeps its level.
    """
    jvm = session.sparkContext._jvm
    assert jvm is not None  # a classic session (the jobs never run on Spark Connect)
    log4j = jvm.org.apache.logging.log4j
    log4j.core.config.Configurator.setLevel(name, log4j.Level.ERROR)


SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
# Adaptive execution merges small shuffle partitions and picks join strategies from the
# sizes it sees (on by default since Spark 3.2; said here because the jobs rely on it).
PERFORMANCE = {
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
}
TASKS_PER_CORE = 2  # the tuning guide's 2-3: a slow task does not hold a whole stage back


# At most this many events, a run is seconds of work, and the JVM's optimizing compiler (C2)
# spends more CPU than it saves: its compile threads take the cores the jobs need. C1 alone
# (HotSpot's quick compiler) cut the JVM's CPU of a whole 1,000-event run from 42.6 to 26.2 s
# (2 cores under load, 2026-11-26); the threshold is a guess between that and 1M events, where C2 pays.
SMALL_ARCHIVE_EVENTS = 100_000
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
SMALL_ARCHIVE = {JAVA_OPTIONS: "-XX:TieredStopAtLevel=1"}
# The heap of the driver JVM for a larger archive. On a local master the driver is the only
# executor: it holds the cached cart events and every shuffle. With Spark's own 1 GB, the
# analytics of 5M events took 45 s against 35 s with 4 GB (the cache spilled to disk, the
# collector ran more: docs/benchmarks.md, tenth pass). A maximum, not a reservation: the heap
# grows to it only when the work needs it.
DRIVER_MEMORY = "4g"


def sized_for(events: int, driver_memory: str | None = None) -> dict[str, str]:
    """Settings for a session that will read an archive of `events` events (`spark_session(**conf)`):
    the quick JIT compiler for a small one, `driver_memory` (default DRIVER_MEMORY) for a larger one,
    and for either the class archive once it is built (spark_jobs/class_archive.py).

    Only a driver JVM the session starts takes them (not one already running); they replace
    a `spark.driver.extraJavaOptions` or `spark.driver.memory` of spark-defaults.conf.
    """
    conf = (
        dict(SMALL_ARCHIVE)
        if events <= SMALL_ARCHIVE_EVENTS
        else {"spark.driver.memory": driver_memory or DRIVER_MEMORY}
    )
    if shared := class_archive.java_options():
        conf[JAVA_OPTIONS] = f"{conf[JAVA_OPTIONS]} {shared}" if JAVA_OPTIONS in conf else shared
    return conf


def size_shuffles(session: SparkSession) -> int:
    """`spark.sql.shuffle.partitions` from the cores the application has, not Spark's fixed 200.

    The jobs' shuffles are aggregates of a few MB per million events: with 200
    partitions on two cores most of a stage's time was scheduling empty tasks
    (docs/benchmarks.md, Spark). Adaptive execution can merge partitions, not split them,
    so this is the upper end: two tasks per core.
    """
    partitions = max(TASKS_PER_CORE * session.sparkContext.defaultParallelism, 2)
    session.conf.set(SHUFFLE_PARTITIONS, str(partitions))
    return partitions


def master_for(master: str | None) -> str | None:
    """The master to set: `master`, else none under spark-submit, else $SPARK_MASTER, else local[*].

    Under `spark-submit` the JVM already holds `spark.master` (its `--master`, or
    spark-defaults.conf, or its own default), so the job must not override it.
    spark-submit is what started this Python when PYSPARK_GATEWAY_PORT is set: the
    driver then joins that JVM instead of launching one.
    """
    if master:
        return master
    if "PYSPARK_GATEWAY_PORT" in os.environ or SparkConf().contains("spark.master"):
        return None
    return os.environ.get("SPARK_MASTER") or DEFAULT_MASTER


def checkpoint_position(archive: str | Path) -> int:
    """The last log position the archive holds (0: none yet)."""
    return archive_layout.read_checkpoint(archive).position


def read_archive(spark: SparkSession, archive: str | Path, through: int | None = None) -> DataFrame:
    """The archived events up to `through` (default: the archive's checkpoint); empty when there are none.

    With the typed cart columns (ARCHIVE_SCHEMA): read from the part files that have them
    (positions from the checkpoint's `typed_from`), parsed from `data` for the events before.
    """
    events_dir = archive_layout.events_dir(archive)
    through, typed_from = _bounds(archive, through)
    if through == 0 or not any(events_dir.glob(f"{archive_layout.PARTITION_PREFIX}*/*.parquet")):
        return spark.createDataFrame([], ARCHIVE_SCHEMA)
    # The schema given, not inferred: no footers read to plan, and older part files read
    # with nulls for the columns they lack.
    frame = spark.read.schema(ARCHIVE_SCHEMA).option("basePath", str(events_dir)).parquet(str(events_dir))
    frame = frame.select(*ARCHIVE_SCHEMA.fieldNames()).where(F.col("position") <= through)
    if typed_from <= 1:
        return frame
    untyped = with_cart_columns(frame.where(F.col("position") < typed_from).select(*EVENT_SCHEMA.fieldNames()))
    if typed_from > through:
        return untyped
    return untyped.unionByName(frame.where(F.col("position") >= typed_from))


def archive_is_typed(archive: str | Path, through: int | None = None) -> bool:
    """Whether `read_archive(spark, archive, through)` reads every event's cart columns as
    Parquet columns, parsing none from `data` (an archive an older archiver started is typed
    only from its checkpoint's `typed_from`)."""
    return _bounds(archive, through)[1] <= 1


def _bounds(archive: str | Path, through: int | None) -> tuple[int, int]:
    """The last position read (`through`, at most the checkpoint's) and the first with typed columns."""
    checkpoint = archive_layout.read_checkpoint(archive)
    through = checkpoint.position if through is None else min(through, checkpoint.position)
    return through, through + 1 if checkpoint.typed_from is None else checkpoint.typed_from


def with_cart_columns(events: DataFrame) -> DataFrame:
    """Events with only the EVENT_SCHEMA columns, and CART_SCHEMA's columns parsed from their `data`."""
    data = F.from_json(F.col("data"), CART_DATA_SCHEMA)
    lines = F.transform(
        F.col("d.lines"), lambda line: F.struct(line["sku"].alias("sku"), line["quantity"].alias("quantity"))
    )
    return events.withColumn("d", data).select(
        *EVENT_SCHEMA.fieldNames(),
        F.col("d.owner").alias("cart_owner"),
        F.col("d.sku").alias("cart_sku"),
        F.col("d.quantity").alias("cart_quantity"),
        money(F.col("d.unit_price")).alias("cart_unit_price"),
        F.col("d.from_quantity").alias("cart_from_quantity"),
        F.col("d.to_quantity").alias("cart_to_quantity"),
        money(F.col("d.total")).alias("cart_total"),
        lines.alias("cart_lines"),
    )


def read_catalog(spark: SparkSession, catalog: str | Path) -> DataFrame:
    """The product catalog export: sku, name, category, price."""
    return spark.read.schema(CATALOG_SCHEMA).parquet(str(catalog))


def cart_events(events: DataFrame) -> DataFrame:
    """Cart streams only (claims and others dropped), with the data fields the jobs read as columns.

    From the archive's typed cart columns (read_archive); events without them (EVENT_SCHEMA
    only) get them parsed from `data` here.
    """
    if "cart_owner" not in events.columns:
        events = with_cart_columns(events)
    return events.where(F.col("stream_id").startswith(cart_streams.PREFIX)).select(
        F.col("position"),
        F.col("stream_id").alias("cart_id"),
        F.col("type"),
        F.col("occurred_at"),
        F.col("cart_owner").alias("owner"),
        F.col("cart_sku").alias("sku"),
        F.col("cart_quantity").alias("quantity"),
        F.col("cart_unit_price").alias("unit_price"),
        F.col("cart_from_quantity").alias("from_quantity"),
        F.col("cart_to_quantity").alias("to_quantity"),
        F.col("cart_total").alias("total"),
        F.col("cart_lines").alias("lines"),
    )


@contextmanager
def cart_events_cached(
    events: DataFrame, reused: Sequence[Callable[[DataFrame], DataFrame]] = (), *, parsed: bool = True
) -> Iterator[DataFrame]:
    """`part(cart_events(events))` for each of `reused` (what several views of a job build
    alike), kept in memory while the block runs, and with `parsed` the cart events themselves.

    Every job calls `cart_events(events)` itself; Spark answers a plan it has cached from
    the cache. With `parsed` (some cart columns come from parsing `data`), the archive is read
    and its JSON parsed once for all of them, not once per view. Without it (`archive_is_typed`),
    the cart events are not cached: each view reads the Parquet columns it needs, and that
    costs less than filling the cache (5M events: 24-28 s for both jobs against 30-49 s
    cached: docs/benchmarks.md, Issue 12, eleventh pass).
    """
    cart = cart_events(events)
    if parsed:
        cart = cart.persist(StorageLevel.MEMORY_AND_DISK)
        cart.count()  # filled now, in one pass: jobs started together would each parse what is missing
    parts = [part(cart).persist(StorageLevel.MEMORY_AND_DISK) for part in reused]
    try:
        yield cart
    finally:
        for frame in parts:
            frame.unpersist()
        if parsed:
            cart.unpersist()


# An output, or a function that builds one (and may run Spark jobs of its own to do so).
Output = DataFrame | Callable[[], DataFrame]


def collect_all(outputs: Mapping[str, Output]) -> dict[str, list[Row]]:
    """Every output's rows, the Spark jobs submitted together from threads of the driver.

    On small data a view's time is the scheduler's round trips, not work on the cores:
    run one after another, the views of a 1,000-event archive took longer than
    starting the session. Together they share the cores as Spark schedules them; each
    view's rows are its own job's, the same as collected alone. An output given as a
    function is built in its thread too, so the jobs that build it overlap the others.
    """
    if not outputs:
        return {}

    def rows(output: Output) -> list[Row]:
        return (output if isinstance(output, DataFrame) else output()).collect()

    with ThreadPoolExecutor(max_workers=len(outputs), thread_name_prefix="collect") as pool:
        futures = {name: pool.submit(rows, output) for name, output in outputs.items()}
        return {name: future.result() for name, future in futures.items()}


def in_order(frame: DataFrame, *columns: str) -> DataFrame:
    """`frame.orderBy(*columns)` for an output of a few thousand rows at most (days, hours, SKUs).

    Sorted in one partition: a global sort of several partitions first samples its input to
    range-partition it, a job and a shuffle per view that cost more than the sort. Only the
    last stage (after the view's last shuffle, with the rows already aggregated) runs in one task.
    """
    return frame.coalesce(1).orderBy(*columns)


def money(column: Column) -> Column:
    return column.cast(MONEY)


def covers_position(events: DataFrame) -> int:
    """The last log position among `events` (0 when empty)."""
    value = events.agg(F.max("position")).first()
    return int(value[0]) if value and value[0] is not None else 0


def job_arguments(argv: Sequence[str] | None, description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--archive", required=True, help="EVENT_ARCHIVE_PATH (holds events/ and _checkpoint.json)")
    parser.add_argument("--catalog", required=True, help="Parquet export of the catalog (sku, name, category, price)")
    parser.add_argument("--out", required=True, help="folder for the outputs, one Parquet folder per view")
    parser.add_argument("--master", default=None, help="default: spark-submit's, else $SPARK_MASTER, else local[*]")
    return parser.parse_args(argv)


def write_outputs(outputs: dict[str, DataFrame], out: str | Path) -> None:
    for name, frame in outputs.items():
        frame.write.mode("overwrite").parquet(str(Path(out) / name))
