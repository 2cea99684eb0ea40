"""The recommendations job: "customers who bought X also bought Y" from checked-out carts.

FP-Growth (Spark MLlib) mines association rules over the SKU sets of orders;
single-item rules X -> Y become recommendations ranked by confidence then lift.
Where the data is thin (a SKU whose pairs fall below FP-Growth's minimum
support or confidence), plain co-occurrence counts fill its top N, marked
`source = "co_occurrence"`. Both use the same definitions, over n orders:
support = orders with X and Y / n, confidence = orders with X and Y / orders
with X, lift = confidence / (orders with Y / n). Only pairs with lift > 1 (bought
together more often than chance) are recommended, whichever method found them.

    spark-submit spark_jobs/recommendations.py --archive var/archive --catalog catalog.parquet --out out/
"""

import sys
from collections.abc import Sequence

from pyspark.ml.fpm import FPGrowth
from pyspark.sql import Column, DataFrame, Window
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


# FP-Growth, the co-occurrence pairs and their counts all read the orders: a run caches them
# once (common.cart_events_cached).
REUSED = (baskets,)


def association_rules(orders: DataFrame, *, min_support: float, min_confidence: float) -> DataFrame:
    """FP-Growth's single-item rules X -> Y as RULE_COLUMNS rows."""
    if orders.isEmpty():
        return orders.sparkSession.createDataFrame([], _RULE_SCHEMA)
    model = FPGrowth(itemsCol="items", minSupport=min_support, minConfidence=min_confidence).fit(orders)
    return model.associationRules.where((F.size("antecedent") == 1) & (F.size("consequent") == 1)).select(
        F.col("antecedent")[0].alias("sku"),
        F.col("consequent")[0].alias("recommended_sku"),
        F.col("support").cast("double"),
        F.col("confidence").cast("double"),
        F.col("lift").cast("double"),
        F.lit("fp_growth").alias("source"),
    )


def co_occurrence(orders: DataFrame) -> DataFrame:
    """Every pair bought together at least once, with support, confidence and lift (no thresholds)."""
    counts = _basket_counts(orders)

    def counted(kind: int, *keys: str) -> DataFrame:
        return counts.where(F.col("kind") == kind).select(*keys, F.col("orders"))

    total = counted(ORDER).withColumnRenamed("orders", "n")
    item_orders = counted(ITEM, "sku").withColumnRenamed("orders", "x_orders")
    y_orders = counted(ITEM, "sku").select(F.col("sku").alias("recommended_sku"), F.col("orders").alias("y_orders"))
    pairs = counted(PAIR, "sku", "recommended_sku").withColumnRenamed("orders", "together")
    confidence = F.col("together") / F.col("x_orders")
    return (
        pairs.join(item_orders, "sku")
        .join(y_orders, "recommended_sku")
        .crossJoin(total)
        .select(
            "sku",
            "recommended_sku",
            (F.col("together") / F.col("n")).alias("support"),
            confidence.alias("confidence"),
            (confidence / (F.col("y_orders") / F.col("n"))).alias("lift"),
            F.lit("co_occurrence").alias("source"),
        )
    )


ORDER, ITEM, PAIR = 0, 1, 2  # what _basket_counts counted


def _basket_counts(orders: DataFrame) -> DataFrame:
    """(kind, sku, recommended_sku, orders): the orders (one row), the orders with each SKU, and
    with each ordered pair of distinct SKUs, counted in one pass over the orders.

    The pairs are built inside each order's row: no join of the exploded items with themselves
    (a shuffle of every line); and one aggregation instead of three (each its own scan and shuffle).
    """
    none = F.lit(None).cast("string")

    def fact(kind: int, sku: Column, recommended: Column) -> Column:
        return F.struct(F.lit(kind).alias("kind"), sku.alias("sku"), recommended.alias("recommended_sku"))

    items = F.coalesce(F.col("items"), F.array().cast("array<string>"))
    in_order = F.transform(items, lambda x: F.transform(F.filter(items, lambda y: y != x), lambda y: fact(PAIR, x, y)))
    facts = F.concat(
        F.array(fact(ORDER, none, none)), F.transform(items, lambda x: fact(ITEM, x, none)), F.flatten(in_order)
    )
    return (
        orders.select(F.inline(facts)).groupBy("kind", "sku", "recommended_sku").agg(F.count(F.lit(1)).alias("orders"))
    )


def recommend(orders: DataFrame, *, top_n: int, min_support: float, min_confidence: float) -> DataFrame:
    """Top `top_n` per SKU with lift > 1: FP-Growth rules first, co-occurrence pairs where rules are missing."""
    rules = association_rules(orders, min_support=min_support, min_confidence=min_confidence)
    pairs = ["sku", "recommended_sku"]
    fallback = co_occurrence(orders).join(rules.select(*pairs), pairs, "left_anti")
    ranked = Window.partitionBy("sku").orderBy(
        (F.col("source") != "fp_growth").cast("int"), F.desc("confidence"), F.desc("lift"), "recommended_sku"
    )
    return (
        rules.unionByName(fallback)
        .where(F.col("lift") > MIN_LIFT)  # before ranking, so ranks stay 1, 2, 3...
        .coalesce(1)  # pairs of SKUs, a few thousand: ranked and sorted in one task, no shuffle for either
        .withColumn("rank", F.row_number().over(ranked))
        .where(F.col("rank") <= top_n)
        .select("sku", "rank", "recommended_sku", "support", "confidence", "lift", "source")
        .orderBy("sku", "rank")
    )


_RULE_SCHEMA = "sku string, recommended_sku string, support double, confidence double, lift double, source string"


def main(argv: Sequence[str] | None = None) -> int:
    args = common.job_arguments(argv, "Also-bought recommendations from the event archive")
    spark = common.spark_session("cartlog-recommendations", args.master)
    common.write_outputs(transform(common.read_archive(spark, args.archive)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
