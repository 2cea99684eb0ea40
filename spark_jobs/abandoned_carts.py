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


def transform(events: DataFrame, *, after_seconds: int, lateness_seconds: int) -> dict[str, DataFrame]:
    """`abandoned_carts` (cart_id, value, last_activity_at) and `abandonment` (one row of totals)."""
    cart = _cart_events(events)
    per_cart = _per_cart(cart, after_seconds).join(_values(cart), "cart_id", "left")
    watermark = cart.agg((F.max(_seconds("occurred_at")) - lateness_seconds).alias("watermark"))
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


def _cart_events(events: DataFrame) -> DataFrame:
    """The cart events as `common.cart_events` parses them (so a run's cached parse serves this job too)."""
    return common.cart_events(events).select(
        F.col("cart_id").substr(len(cart_streams.PREFIX) + 1, 64).alias("cart_id"),
        "position",
        "type",
        "occurred_at",
        "sku",
        F.coalesce(F.col("quantity"), F.lit(0)).alias("quantity"),
        "unit_price",
        "to_quantity",
    )


def _lines(cart: DataFrame) -> DataFrame:
    """Every line event with its line's quantity before and after it."""
    line = Window.partitionBy("cart_id", "sku").orderBy("position")
    is_set = F.col("type").isin(*SETS)
    added = F.when(F.col("type") == "ItemAdded", F.col("quantity")).otherwise(0)
    segmented = cart.where(F.col("sku").isNotNull()).withColumn("segment", F.sum(is_set.cast("int")).over(line))
    segment = Window.partitionBy("cart_id", "sku", "segment").orderBy("position")
    base = F.first(F.when(is_set, F.coalesce("to_quantity", F.lit(0))).otherwise(0)).over(segment)
    with_after = segmented.withColumn("after", base + F.sum(added).over(segment))
    return with_after.withColumn("before", F.lag("after", 1, 0).over(line))


def _values(cart: DataFrame) -> DataFrame:
    """Per cart, what its remaining lines are worth (a line is at the price of its latest add,
    as the cart's own fold prices it: carts/decider.py, evolve)."""
    line = Window.partitionBy("cart_id", "sku").orderBy("position")
    whole_line = line.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    added = F.col("type") == "ItemAdded"
    priced = _lines(cart).select(
        "cart_id",
        F.last("after").over(whole_line).alias("quantity"),
        F.last(F.when(added, F.col("unit_price")), ignorenulls=True).over(whole_line).alias("price"),
    )
    return priced.distinct().groupBy("cart_id").agg(F.sum(F.col("quantity") * F.col("price")).alias("value"))


def _per_cart(cart: DataFrame, after_seconds: int) -> DataFrame:
    changes = _lines(cart).select("position", (F.col("after") - F.col("before")).alias("change"))
    earlier = Window.partitionBy("cart_id").orderBy("position").rowsBetween(Window.unboundedPreceding, -1)
    checked_out = (F.col("type") == "CheckedOut").cast("int")
    steps = (
        cart.join(changes, "position", "left")
        .withColumn("change", F.coalesce("change", F.lit(0)))
        .withColumn("items_before", F.coalesce(F.sum("change").over(earlier), F.lit(0)))
        .withColumn("closed_before", F.coalesce(F.max(checked_out).over(earlier), F.lit(0)))
        .withColumn("last_before", F.max(_seconds("occurred_at")).over(earlier))
    )
    came_back = (
        (F.col("items_before") > 0)
        & (F.col("closed_before") == 0)
        & (_seconds("occurred_at") >= F.col("last_before") + after_seconds)
    )
    return steps.groupBy("cart_id").agg(
        F.max("occurred_at").alias("last_activity_at"),
        (F.max(checked_out) == 0).alias("open"),
        F.sum("change").alias("items"),
        F.count(F.when(came_back, 1)).alias("recoveries"),
    )


def _seconds(column: str) -> Column:
    return F.col(column).cast("double")


def main(argv: Sequence[str] | None = None) -> int:
    args = common.job_arguments(argv, "Abandoned carts in batch: archive -> Parquet views.")
    spark = common.spark_session("cartlog-abandoned-carts", args.master)
    try:
        outputs = transform(
            common.read_archive(spark, args.archive),
            after_seconds=int(os.environ.get("ABANDONED_CART_AFTER_SECONDS", "1800")),
            lateness_seconds=int(os.environ.get("ABANDONED_CART_LATENESS_SECONDS", "300")),
        )
        common.write_outputs(outputs, args.out)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
