"""The analytics job: funnel, revenue, products, time to checkout, hourly activity and sessions.

All on event time (`occurred_at`, UTC days), from the archived cart events; the
catalog joins in names and categories. `transform` is pure (DataFrames in,
DataFrames out); `main` is the spark-submit wrapper.

    spark-submit spark_jobs/analytics.py --archive var/archive --catalog catalog.parquet --out out/
"""

import sys
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

try:
    from spark_jobs import common
except ImportError:  # spark-submit spark_jobs/analytics.py puts only spark_jobs/ on the path
    import common  # type: ignore[import-not-found,no-redef]

SESSION_GAP_SECONDS = 30 * 60
# Time from first add to checkout, in buckets a person reads at a glance: (label, lower, upper) seconds.
CHECKOUT_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("under 1 min", 0, 60),
    ("1-5 min", 60, 300),
    ("5-15 min", 300, 900),
    ("15-60 min", 900, 3600),
    ("1-24 h", 3600, 86400),
    ("1 day or more", 86400, None),
)


def transform(events: DataFrame, catalog: DataFrame) -> dict[str, DataFrame]:
    """Every analytics view, by name, from the raw archived events and the catalog."""
    cart = common.cart_events(events)
    per_cart = carts(cart)
    return {
        "summary": summary(per_cart, cart),
        "funnel_daily": funnel_daily(per_cart),
        "revenue_daily": revenue_daily(cart),
        "product_activity": product_activity(cart, catalog),
        "checkout_time": checkout_time(per_cart),
        "hourly_activity": hourly_activity(cart),
        "sessions_daily": sessions_daily(cart),
    }


def carts(cart: DataFrame) -> DataFrame:
    """One row per started cart: cart_id, started_at, has_items, first_add_at, checked_out_at.

    Timestamps only: aggregates of fixed-width values run as a hash aggregate; a
    string among them (the owner, which no view read) made Spark sort every event.
    """

    def first(event_type: str, column: str = "occurred_at") -> F.Column:
        return F.min(F.when(F.col("type") == event_type, F.col(column)))

    return (
        cart.groupBy("cart_id")
        .agg(
            first("CartStarted").alias("started_at"),
            first("ItemAdded").alias("first_add_at"),
            first("CheckedOut").alias("checked_out_at"),
        )
        .where(F.col("started_at").isNotNull())
        .withColumn("has_items", F.col("first_add_at").isNotNull())
    )


# Built alike by several views (summary, funnel, checkout time): a run caches it once
# (common.cart_events_cached).
REUSED = (carts,)


def _funnel_counts() -> list[F.Column]:
    return [
        F.count(F.lit(1)).cast("long").alias("carts_started"),
        F.sum(F.col("has_items").cast("long")).alias("carts_with_items"),
        F.count("checked_out_at").cast("long").alias("carts_checked_out"),
    ]


def _rates(frame: DataFrame) -> DataFrame:
    started, with_items, checked_out = F.col("carts_started"), F.col("carts_with_items"), F.col("carts_checked_out")
    return frame.withColumn(
        "conversion_rate", F.when(started > 0, checked_out / started).otherwise(F.lit(0.0))
    ).withColumn(
        # Carts that got items and were never checked out, among carts that got items.
        "abandonment_rate",
        F.when(with_items > 0, (with_items - checked_out) / with_items).otherwise(F.lit(0.0)),
    )


def funnel_daily(per_cart: DataFrame) -> DataFrame:
    """Per day a cart was started: started -> with items -> checked out, conversion and abandonment."""
    counts = per_cart.groupBy(F.to_date("started_at").alias("day")).agg(*_funnel_counts())
    return common.in_order(_rates(counts.fillna(0, ["carts_with_items"])), "day")


def summary(per_cart: DataFrame, cart: DataFrame) -> DataFrame:
    """One row over the whole archive: the funnel, revenue and average order value."""
    funnel = per_cart.agg(*_funnel_counts()).fillna(0, ["carts_with_items"])
    revenue = cart.where(F.col("type") == "CheckedOut").agg(
        F.coalesce(F.sum("total"), F.lit(0)).cast(T.DecimalType(18, 2)).alias("revenue"),
        F.count(F.lit(1)).alias("orders"),
    )
    aov = F.when(F.col("orders") > 0, F.col("revenue") / F.col("orders")).otherwise(F.lit(0))
    return (
        _rates(funnel.crossJoin(revenue))
        .withColumn("average_order_value", aov.cast(common.MONEY))
        .select(*SUMMARY_COLUMNS)
    )


SUMMARY_COLUMNS = (
    "carts_started", "carts_with_items", "carts_checked_out", "conversion_rate", "abandonment_rate",
    "revenue", "average_order_value",
)  # fmt: skip


def revenue_daily(cart: DataFrame) -> DataFrame:
    """Per checkout day: orders, revenue (sum of order totals) and average order value."""
    return (
        cart.where(F.col("type") == "CheckedOut")
        .groupBy(F.to_date("occurred_at").alias("day"))
        .agg(F.count(F.lit(1)).alias("orders"), F.sum("total").cast(T.DecimalType(18, 2)).alias("revenue"))
        .withColumn("average_order_value", (F.col("revenue") / F.col("orders")).cast(common.MONEY))
        .transform(common.in_order, "day")
    )


def product_activity(cart: DataFrame, catalog: DataFrame) -> DataFrame:
    """Per SKU: times added, units purchased, orders, and carts where it was added then removed.

    One pass over the events (`_product_facts`), counted per SKU, instead of three
    aggregations joined on the SKU (three scans, and a sort-merge join for each full join).
    """

    def of(kind: int, value: Column) -> Column:
        return F.coalesce(F.sum(F.when(F.col("kind") == kind, value)), F.lit(0)).cast("long")

    # A null SKU never matched itself in the full joins this replaces: one row per kind, as before.
    apart = F.when(F.col("sku").isNull(), F.col("kind")).alias("apart")
    counts = (
        _product_facts(cart)
        .groupBy("sku", apart)
        .agg(
            of(ADDED, F.col("n")).alias("adds"),
            of(BOUGHT, F.col("quantity")).alias("purchased_quantity"),
            of(BOUGHT, F.lit(1)).alias("orders"),
            of(REMOVED, F.lit(1)).alias("added_then_removed"),
        )
    )
    return (
        counts.join(F.broadcast(catalog.select("sku", "name", "category")), "sku", "left")
        .select("sku", "name", "category", "adds", "purchased_quantity", "orders", "added_then_removed")
        .transform(common.in_order, "sku")
    )


ADDED, BOUGHT, REMOVED = 0, 1, 2  # the kinds of a product fact


def _product_facts(cart: DataFrame) -> DataFrame:
    """(sku, kind, cart_id, n, quantity): adds per SKU (cart_id null), and each cart's orders and
    removals of a SKU, once per cart (so counting rows counts distinct carts)."""

    def fact(kind: int, sku: Column, cart_id: Column, quantity: Column) -> Column:
        return F.struct(
            F.lit(kind).alias("kind"),
            sku.alias("sku"),
            cart_id.alias("cart_id"),
            quantity.cast("long").alias("quantity"),
        )

    kind = F.col("type")
    facts = (
        F.when(kind == "ItemAdded", F.array(fact(ADDED, F.col("sku"), F.lit(None).cast("string"), F.lit(0))))
        .when(kind == "ItemRemoved", F.array(fact(REMOVED, F.col("sku"), F.col("cart_id"), F.lit(0))))
        .when(
            kind == "CheckedOut",
            F.transform("lines", lambda line: fact(BOUGHT, line["sku"], F.col("cart_id"), line["quantity"])),
        )
    )
    return (
        cart.where(kind.isin("ItemAdded", "ItemRemoved", "CheckedOut"))
        .select(F.inline(facts))
        .groupBy("sku", "kind", "cart_id")
        .agg(F.count(F.lit(1)).alias("n"), F.sum("quantity").alias("quantity"))
    )


def checkout_time(per_cart: DataFrame) -> DataFrame:
    """How long from a cart's first add to its checkout: carts per bucket, every bucket listed.

    One aggregate row with a count per bucket, turned into a row per bucket: no table of
    buckets built in the driver (a Python worker to start) and no join.
    """
    micros = F.unix_micros("checked_out_at") - F.unix_micros("first_add_at")

    def carts_in(lower: int, upper: int | None) -> Column:
        within = micros >= lower * 1_000_000
        return F.count(F.when(within if upper is None else within & (micros < upper * 1_000_000), 1))

    counts = per_cart.agg(
        *[carts_in(lower, upper).alias(f"c{i}") for i, (_, lower, upper) in enumerate(CHECKOUT_BUCKETS)]
    )
    rows = [
        F.struct(
            F.lit(i).alias("bucket"),
            F.lit(label).alias("label"),
            F.lit(lower).cast("long").alias("lower_seconds"),
            F.lit(upper).cast("long").alias("upper_seconds"),
            F.col(f"c{i}").alias("carts"),
        )
        for i, (label, lower, upper) in enumerate(CHECKOUT_BUCKETS)
    ]
    return counts.select(F.inline(F.array(*rows)))


def hourly_activity(cart: DataFrame) -> DataFrame:
    """Hourly tumbling windows: events, distinct carts, adds and checkouts per hour with any activity."""
    return (
        cart.groupBy(F.window("occurred_at", "1 hour").alias("w"))
        .agg(
            F.count(F.lit(1)).alias("events"),
            F.countDistinct("cart_id").alias("carts"),
            F.sum(F.when(F.col("type") == "ItemAdded", 1).otherwise(0)).cast("long").alias("adds"),
            F.sum(F.when(F.col("type") == "CheckedOut", 1).otherwise(0)).cast("long").alias("checkouts"),
        )
        .select(F.col("w.start").alias("window_start"), "events", "carts", "adds", "checkouts")
        .transform(common.in_order, "window_start")
    )


def sessions(cart: DataFrame, gap_seconds: int = SESSION_GAP_SECONDS) -> DataFrame:
    """Shopping sessions: a shopper's (the cart's starting owner) events with no pause longer than the gap.

    What `F.session_window(occurred_at, gap)` grouped by shopper gives (an event at most the gap
    after the one before stays in its session; events without a time are in none), computed as
    a walk through each shopper's events in time order: an event more than the gap after the one
    before starts a session, and a running count of those starts numbers them. session_window
    did the same in two passes: a hash aggregation of every event keyed by its own window
    (which merged nothing), a shuffle of all of them, then the sort and the merge.
    """
    owners = cart.where(F.col("type") == "CartStarted").select("cart_id", F.col("owner").alias("shopper"))
    # The hash first: the sort by shopper gets a distinct 8-byte prefix per shopper ("anon:123..."
    # share theirs), so it rarely compares whole keys; the shopper itself still decides the groups.
    shopper = Window.partitionBy("h", "shopper").orderBy("t")
    starts = F.coalesce((F.col("t") > F.lag("t").over(shopper) + gap_seconds * 1_000_000).cast("int"), F.lit(1))
    numbered = F.sum("starts").over(shopper.rowsBetween(Window.unboundedPreceding, Window.currentRow))
    return (
        cart.where(F.col("occurred_at").isNotNull())
        # A hash of each partition's owners, one row a cart, instead of sorting every event by
        # cart to merge them in (a sort-merge join); both sides are still partitioned by cart, so
        # the table a task holds shrinks as partitions are added.
        .join(owners.hint("shuffle_hash"), "cart_id")
        .select(
            F.xxhash64("shopper").alias("h"),
            "shopper",
            F.unix_micros("occurred_at").alias("t"),
            (F.col("type") == "CheckedOut").cast("int").alias("checked_out"),
        )
        .withColumn("starts", starts)
        .withColumn("session", numbered)
        # Partitioned by shopper already (the window's shuffle): aggregated where it is, no shuffle.
        .groupBy("h", "shopper", "session")
        .agg(
            F.timestamp_micros(F.min("t")).alias("first_at"),
            F.timestamp_micros(F.max("t")).alias("last_at"),
            F.count(F.lit(1)).alias("events"),
            F.max("checked_out").alias("checked_out"),
        )
        .select("shopper", "first_at", "last_at", "events", "checked_out")
    )


def sessions_daily(cart: DataFrame, gap_seconds: int = SESSION_GAP_SECONDS) -> DataFrame:
    """Per day a session began: sessions, their average length and events, and how many checked out."""
    duration = (F.unix_micros("last_at") - F.unix_micros("first_at")) / 1_000_000
    return (
        sessions(cart, gap_seconds)
        .groupBy(F.to_date("first_at").alias("day"))
        .agg(
            F.count(F.lit(1)).alias("sessions"),
            F.avg(duration).alias("average_seconds"),
            F.avg("events").alias("average_events"),
            F.sum("checked_out").cast("long").alias("sessions_with_checkout"),
        )
        .transform(common.in_order, "day")
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = common.job_arguments(argv, "Analytics views from the event archive")
    spark = common.spark_session("cartlog-analytics", args.master)
    outputs = transform(common.read_archive(spark, args.archive), common.read_catalog(spark, args.catalog))
    common.write_outputs(outputs, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
