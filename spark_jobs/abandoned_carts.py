"""Abandoned carts in batch: the rule of `projections/abandonment.py`, over the whole archive.

The live consumer folds events one by one; here the same rule is a few window
functions, so every executor works on its own carts and nothing is collected:
- a line's quantity: a set (ItemQuantityChanged, ItemRemoved) starts a segment, adds
  within it are summed; its price is that of the add that started the line;
- a cart's items before each event: the running sum of its lines' changes;
- a recovery: an event `after` or more past the cart's latest earlier activity while
  it was open with items; abandoned: open, with items, last activity `after` before
  the watermark (the latest event time of all cart events, minus `lateness`).

spark-submit spark_jobs/abandoned_carts.py --archive DIR --catalog FILE --out DIR
"""

import os
import sys
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from carts import streams as cart_streams

from . import common

SETS = ("ItemQuantityChanged", "ItemRemoved")


def rule_from_env() -> dict[str, int]:
    """The rule's thresholds (`transform`'s keywords) for a job run outside the shop: the same
    variables and defaults as the shop's settings (ABANDONED_CART_AFTER_SECONDS, _LATENESS_SECONDS)."""
    return {
        "after_seconds": int(os.environ.get("ABANDONED_CART_AFTER_SECONDS", "1800")),
        "lateness_seconds": int(os.environ.get("ABANDONED_CART_LATENESS_SECONDS", "300")),
    }


def transform(events: DataFrame, *, after_seconds: int, lateness_seconds: int) -> dict[str, DataFrame]:
    """`abandoned_carts` (cart_id, value, last_activity_at) and `abandonment` (one row of totals)."""
    per_cart = _per_cart(steps(common.cart_events(events)), after_seconds)
    # The newest event time of all cart events is the newest of the carts' last activities.
    watermark = per_cart.agg((F.max(_seconds("last_activity_at")) - lateness_seconds).alias("watermark"))
    flagged = per_cart.crossJoin(watermark).withColumn(
        "abandoned",
        F.col("open") & (F.col("items") > 0) & (_seconds("last_activity_at") + after_seconds <= F.col("watermark")),
    )
    abandoned = flagged.where("abandoned").select(
        "cart_id", F.coalesce("value", F.lit(0)).cast(common.MONEY).alias("value"), "last_activity_at"
    )
    totals = flagged.agg(
        F.count(F.when(F.col("abandoned"), 1)).alias("carts"),
        F.coalesce(F.sum(F.when(F.col("abandoned"), F.col("value"))), F.lit(0)).cast(common.MONEY).alias("value"),
        F.coalesce(F.sum("recoveries"), F.lit(0)).cast("long").alias("recovered"),
        F.max("watermark").cast("timestamp").alias("watermark"),
    )
    return {"abandoned_carts": abandoned, "abandonment": totals}


def steps(cart: DataFrame) -> DataFrame:
    """Every cart event of `cart` (`common.cart_events`) with `change`, the units it added to its
    line (negative: taken away; 0 for an event without a line), and on a line's last event `worth`,
    what the line is worth in the end: its quantity at the price of its latest add, as the cart's
    own fold prices it (carts/decider.py, evolve). An event without a SKU is in a "line" of its own
    that never changes. Both outputs start from it, whatever the thresholds: REUSED.

    Each cart's events are put in one partition first: every window below is within a cart, and
    the carts' rows are summed where they lie, so the events are shuffled once (not again by line)."""
    cart = cart.select(
        F.col("cart_id").substr(len(cart_streams.PREFIX) + 1, 64).alias("cart_id"),
        "position",
        "type",
        "occurred_at",
        "sku",
        F.coalesce(F.col("quantity"), F.lit(0)).alias("quantity"),
        "unit_price",
        "to_quantity",
    ).repartition("cart_id")
    line = Window.partitionBy("cart_id", "sku").orderBy("position")
    is_set = F.col("type").isin(*SETS)
    added = F.col("type") == "ItemAdded"
    segmented = cart.withColumn("segment", F.sum(is_set.cast("int")).over(line))
    segment = Window.partitionBy("cart_id", "sku", "segment").orderBy("position")
    base = F.first(F.when(is_set, F.coalesce("to_quantity", F.lit(0))).otherwise(0)).over(segment)
    after = segmented.withColumn("after", base + F.sum(F.when(added, F.col("quantity")).otherwise(0)).over(segment))
    price = F.last(F.when(added, F.col("unit_price")), ignorenulls=True).over(line)  # the latest add so far
    last_of_line = F.lead("position").over(line).isNull() & F.col("sku").isNotNull()
    return after.select(
        "cart_id",
        "position",
        "type",
        "occurred_at",
        (F.col("after") - F.lag("after", 1, 0).over(line)).alias("change"),
        F.when(last_of_line, F.col("after") * price).alias("worth"),
    )


# What both outputs build alike, kept in memory for a run (common.cart_events_cached; spark_jobs/every_job.py).
REUSED = (steps,)


def _per_cart(steps: DataFrame, after_seconds: int) -> DataFrame:
    earlier = Window.partitionBy("cart_id").orderBy("position").rowsBetween(Window.unboundedPreceding, -1)
    checked_out = (F.col("type") == "CheckedOut").cast("int")
    before = (
        steps.withColumn("items_before", F.coalesce(F.sum("change").over(earlier), F.lit(0)))
        .withColumn("closed_before", F.coalesce(F.max(checked_out).over(earlier), F.lit(0)))
        .withColumn("last_before", F.max(_seconds("occurred_at")).over(earlier))
    )
    came_back = (
        (F.col("items_before") > 0)
        & (F.col("closed_before") == 0)
        & (_seconds("occurred_at") >= F.col("last_before") + after_seconds)
    )
    return before.groupBy("cart_id").agg(
        F.max("occurred_at").alias("last_activity_at"),
        (F.max(checked_out) == 0).alias("open"),
        F.sum("change").alias("items"),
        F.count(F.when(came_back, 1)).alias("recoveries"),
        F.sum("worth").alias("value"),
    )


def _seconds(column: str) -> Column:
    return F.col(column).cast("double")


def main(argv: Sequence[str] | None = None) -> int:
    args = common.job_arguments(argv, "Abandoned carts in batch: archive -> Parquet views.")
    spark = common.spark_session("cartlog-abandoned-carts", args.master)
    try:
        outputs = transform(common.read_archive(spark, args.archive), **rule_from_env())
        common.write_outputs(outputs, args.out)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
