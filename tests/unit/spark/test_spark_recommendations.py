"""spark_jobs.recommendations: FP-Growth rules ranked first, co-occurrence filling thin SKUs, exact figures."""

import pytest
from pyspark.sql import Row, SparkSession
from pyspark.testing import assertDataFrameEqual

from spark_jobs import common, recommendations
from tests.spark_session import checked_out, events_frame

pytestmark = pytest.mark.spark

FP, CO = "fp_growth", "co_occurrence"
ORDERS = [["A", "B"], ["A", "B"], ["A", "C"], ["B"], ["D", "E"]]


def orders_log(orders: list[list[str]]) -> list[tuple[str, str, dict[str, object], str]]:
    log: list[tuple[str, str, dict[str, object], str]] = []
    for number, skus in enumerate(orders):
        cart, when = f"cart-{number}", f"2026-01-01 10:{number:02d}:00"
        log.append((cart, "CartStarted", {"owner": f"anon:{number}"}, when))
        log.append((cart, "CheckedOut", checked_out([(sku, 1, "1.00") for sku in skus], "1.00"), when))
    # An abandoned cart with A and E never counts as bought together.
    log.append(("cart-x", "ItemAdded", {"sku": "A", "quantity": 1, "unit_price": "1.00"}, "2026-01-01 11:00:00"))
    return log


def test_baskets_are_the_distinct_skus_of_each_checked_out_cart(spark: SparkSession) -> None:
    log = [
        (
            "cart-1",
            "CheckedOut",
            checked_out([("B", 1, "1.00"), ("A", 2, "1.00"), ("B", 1, "1.00")], "4.00"),
            "2026-01-01 10:00:00",
        )
    ]
    assertDataFrameEqual(
        recommendations.baskets(common.cart_events(events_frame(spark, log))), [Row(cart_id="cart-1", items=["A", "B"])]
    )


def test_fp_growth_rules_rank_first_and_co_occurrence_fills_thin_skus(spark: SparkSession) -> None:
    # n = 5 orders; with min support 0.3 only {A, B} (2 orders) is frequent as a pair.
    views = recommendations.transform(
        events_frame(spark, orders_log(ORDERS)), top_n=2, min_support=0.3, min_confidence=0.5
    )
    assertDataFrameEqual(
        views["recommendations"],
        [
            Row(sku="A", rank=1, recommended_sku="B", support=0.4, confidence=2 / 3, lift=10 / 9, source=FP),
            Row(sku="A", rank=2, recommended_sku="C", support=0.2, confidence=1 / 3, lift=5 / 3, source=CO),
            Row(sku="B", rank=1, recommended_sku="A", support=0.4, confidence=2 / 3, lift=10 / 9, source=FP),
            Row(sku="C", rank=1, recommended_sku="A", support=0.2, confidence=1.0, lift=5 / 3, source=CO),
            Row(sku="D", rank=1, recommended_sku="E", support=0.2, confidence=1.0, lift=5.0, source=CO),
            Row(sku="E", rank=1, recommended_sku="D", support=0.2, confidence=1.0, lift=5.0, source=CO),
        ],
    )


def test_no_orders_no_recommendations(spark: SparkSession) -> None:
    views = recommendations.transform(events_frame(spark, orders_log([])))
    assert views["recommendations"].count() == 0


def test_pairs_bought_together_no_more_often_than_chance_are_not_recommended(spark: SparkSession) -> None:
    # n = 6: A->B has lift (1/3) / (3/6) = 2/3; A->C, C->A, B->C and C->B have lift 1; only D<->E (lift 6) stay.
    orders = [["A", "B"], ["A", "C"], ["B", "C"], ["A"], ["B"], ["D", "E"]]
    views = recommendations.transform(events_frame(spark, orders_log(orders)))
    assertDataFrameEqual(
        views["recommendations"],
        [
            Row(sku="D", rank=1, recommended_sku="E", support=1 / 6, confidence=1.0, lift=6.0, source=FP),
            Row(sku="E", rank=1, recommended_sku="D", support=1 / 6, confidence=1.0, lift=6.0, source=FP),
        ],
    )


def test_a_checkout_without_lines_counts_among_the_orders_of_the_other_pairs_not_of_the_rules(
    spark: SparkSession,
) -> None:
    # As FP-Growth counted them: the rules over the 5 orders with a SKU list (A -> B: 2 of 5 orders,
    # confidence 2/3, lift (2/3) / (3/5)); the other pairs over all 6 orders (A -> C: 1/6, 1/3, (1/3) / (1/6)).
    log = orders_log(ORDERS)
    log.append(("cart-n", "CheckedOut", {"order_id": "n", "total": "1.00"}, "2026-01-01 12:00:00"))
    views = recommendations.transform(events_frame(spark, log), top_n=2, min_support=0.3, min_confidence=0.5)
    assertDataFrameEqual(
        views["recommendations"],
        [
            Row(sku="A", rank=1, recommended_sku="B", support=0.4, confidence=2 / 3, lift=10 / 9, source=FP),
            Row(sku="A", rank=2, recommended_sku="C", support=1 / 6, confidence=1 / 3, lift=2.0, source=CO),
            Row(sku="B", rank=1, recommended_sku="A", support=0.4, confidence=2 / 3, lift=10 / 9, source=FP),
            Row(sku="C", rank=1, recommended_sku="A", support=1 / 6, confidence=1.0, lift=2.0, source=CO),
            Row(sku="D", rank=1, recommended_sku="E", support=1 / 6, confidence=1.0, lift=6.0, source=CO),
            Row(sku="E", rank=1, recommended_sku="D", support=1 / 6, confidence=1.0, lift=6.0, source=CO),
        ],
    )
