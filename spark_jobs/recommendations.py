"""The recommendations job: "customers who bought X also bought Y" from checked-out carts.

Over the SKU sets of n orders, for each ordered pair of SKUs bought together:
support = orders with X and Y / n, confidence = orders with X and Y / orders with X,
lift = confidence / (orders with Y / n). A pair is an association rule X -> Y
(`source = "fp_growth"`) when its support is at least MIN_SUPPORT and its confidence
at least MIN_CONFIDENCE: the single-item rules FP-Growth (Spark MLlib) mined, with its
figures, from the pair counts alone (docs/analytics.md says why they are the same).
Where the data is thin (a SKU with fewer than N rules), the other pairs fill its top N,
marked `source = "co_occurrence"`. Only pairs with lift > 1 (bought together more often
than chance) are recommended, whichever kind they are.

    spark-submit spark_jobs/recommendations.py --archive var/archive --catalog catalog.parquet --out out/
"""

import sys
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F

try:
    from spark_jobs import common
except ImportError:  # spark-submit spark_jobs/recommendations.py puts only spark_jobs/ on the path
    import common  # type: ignore[import-not-found,no-redef]

TOP_N = 4
MIN_SUPPORT = 0.01
MIN_CONFIDENCE = 0.05
# lift <= 1: Y is no likelier in an order with X than in any order, so X says nothing about Y.
MIN_LIFT = 1.0
RULE_COLUMNS = ["sku", "recommended_sku", "support", "confidence", "lift", "source"]
WINDOW_EXEC = "org.apache.spark.sql.execution.window.WindowExec"  # the driver's logger of the warning below


def transform(
    events: DataFrame, *, top_n: int = TOP_N, min_support: float = MIN_SUPPORT, min_confidence: float = MIN_CONFIDENCE
) -> dict[str, DataFrame]:
    orders = baskets(common.cart_events(events))
    return {"recommendations": recommend(orders, top_n=top_n, min_support=min_support, min_confidence=min_confidence)}


def baskets(cart: DataFrame) -> DataFrame:
    """One row per checked-out cart: cart_id, items (its distinct SKUs, sorted)."""
    return cart.where(F.col("type") == "CheckedOut").select(
        "cart_id", F.array_sort(F.array_distinct(F.transform("lines", lambda line: line["sku"]))).alias("items")
    )


# The pair counts read the orders: a run caches them once (common.cart_events_cached).
REUSED = (baskets,)

RULE, CO_OCCURRENCE = "fp_growth", "co_occurrence"  # `source`: the name FP-Growth's rules always had


def pairs(orders: DataFrame, *, min_support: float, min_confidence: float) -> DataFrame:
    """Every pair bought together at least once as RULE_COLUMNS rows: the rules, and the other pairs.

    A rule's figures are over the orders FP-Growth counted (those with a SKU list; a checkout
    without lines is none); the other pairs', over every order, as they always were.
    """
    kind = F.col("kind")

    def count_of(counted: int, over: WindowSpec) -> Column:
        return F.max(F.when(kind == counted, F.col("orders"))).over(over)

    # Every count sits beside the pair counts in one frame, a few thousand rows in one task: each pair
    # row takes its SKUs' and the totals' counts from windows, not from joins (a filter on the counts'
    # `kind` is pushed below their aggregation, so each join re-read and re-counted the orders).
    whole = Window.partitionBy()
    # That window has no partition on purpose (the counts are one small task already): Spark warns
    # "No Partition Defined for Window operation!" each time it plans it, a flood in a worker's log.
    common.quiet_logger(orders.sparkSession, WINDOW_EXEC)
    consequent = F.when(kind == PAIR, F.col("recommended_sku")).otherwise(F.col("sku"))
    counts = (
        _basket_counts(orders)
        .coalesce(1)
        .select(
            "kind",
            "sku",
            "recommended_sku",
            F.col("orders").alias("together"),
            count_of(ITEM, Window.partitionBy("sku")).alias("x_orders"),
            count_of(ITEM, Window.partitionBy(consequent)).alias("y_orders"),
            count_of(ORDER, whole).alias("n"),
            count_of(LISTED, whole).alias("m"),
        )
    )
    together = F.col("together")
    confidence = together / F.col("x_orders")  # long / long: double division, as FP-Growth's freqUnion / freqX
    # FP-Growth keeps itemsets in at least ceil(min_support * m) orders (a double product, rounded up), so
    # a pair is frequent from that count; its items are then frequent too. Its rules' confidence is compared
    # as computed. A rule X -> Y is exactly a frequent pair {X, Y} with confidence >= min_confidence.
    is_rule = (together >= F.ceil(F.lit(min_support) * F.col("m"))) & (confidence >= F.lit(min_confidence))
    over = F.when(is_rule, F.col("m")).otherwise(F.col("n"))
    return counts.where(kind == PAIR).select(
        "sku",
        "recommended_sku",
        (together / over).alias("support"),
        confidence.alias("confidence"),
        (confidence / (F.col("y_orders") / over)).alias("lift"),
        F.when(is_rule, F.lit(RULE)).otherwise(F.lit(CO_OCCURRENCE)).alias("source"),
    )


# What _basket_counts counted: the orders, those with a SKU list, the orders with each SKU, with each pair.
ORDER, LISTED, ITEM, PAIR = 0, 3, 1, 2


def _basket_counts(orders: DataFrame) -> DataFrame:
    """(kind, sku, recommended_sku, orders): the orders (one row), the orders with a SKU list (one row),
    the orders with each SKU, and with each ordered pair of distinct SKUs, counted in one pass over the orders.

    The pairs are built inside each order's row: no join of the exploded items with themselves
    (a shuffle of every line); and one aggregation instead of several (each its own scan and shuffle).
    """
    none = F.lit(None).cast("string")

    def fact(kind: int, sku: Column, recommended: Column) -> Column:
        return F.struct(F.lit(kind).alias("kind"), sku.alias("sku"), recommended.alias("recommended_sku"))

    items = F.coalesce(F.col("items"), F.array().cast("array<string>"))
    in_order = F.transform(items, lambda x: F.transform(F.filter(items, lambda y: y != x), lambda y: fact(PAIR, x, y)))
    listed = F.when(F.col("items").isNotNull(), F.array(fact(LISTED, none, none))).otherwise(F.array())
    facts = F.concat(
        F.array(fact(ORDER, none, none)), listed, F.transform(items, lambda x: fact(ITEM, x, none)), F.flatten(in_order)
    )
    return (
        orders.select(F.inline(facts)).groupBy("kind", "sku", "recommended_sku").agg(F.count(F.lit(1)).alias("orders"))
    )


def recommend(orders: DataFrame, *, top_n: int, min_support: float, min_confidence: float) -> DataFrame:
    """Top `top_n` per SKU with lift > 1: association rules first, the other pairs where rules are missing."""
    ranked = Window.partitionBy("sku").orderBy(
        (F.col("source") != RULE).cast("int"), F.desc("confidence"), F.desc("lift"), "recommended_sku"
    )
    return (
        pairs(orders, min_support=min_support, min_confidence=min_confidence)
        .where(F.col("lift") > MIN_LIFT)  # before ranking, so ranks stay 1, 2, 3...
        .coalesce(1)  # pairs of SKUs (in one task since pairs()): ranked and sorted there, no shuffle for either
        .withColumn("rank", F.row_number().over(ranked))
        .where(F.col("rank") <= top_n)
        .select("sku", "rank", "recommended_sku", "support", "confidence", "lift", "source")
        .orderBy("sku", "rank")
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = common.job_arguments(argv, "Also-bought recommendations from the event archive")
    spark = common.spark_session("cartlog-recommendations", args.master)
    common.write_outputs(transform(common.read_archive(spark, args.archive)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
