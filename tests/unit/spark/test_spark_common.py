"""How a run uses Spark: shuffles sized to the cores, the archive parsed once for every job,
the views collected together with the rows each has alone."""

from collections.abc import Iterator

import pytest
from pyspark.sql import DataFrame, SparkSession

from spark_jobs import analytics, common, recommendations
from tests.spark_session import catalog_frame, events_frame
from tests.unit.spark.test_spark_analytics import CATALOG, LOG

pytestmark = pytest.mark.spark


@pytest.fixture
def shuffle_setting(spark: SparkSession) -> Iterator[None]:
    before = spark.conf.get(common.SHUFFLE_PARTITIONS) or "2"
    yield
    spark.conf.set(common.SHUFFLE_PARTITIONS, before)


def reads_the_cache(frame: DataFrame) -> bool:
    return "InMemoryRelation" in frame._jdf.queryExecution().withCachedData().toString()


def is_cached(frame: DataFrame) -> bool:
    """This very plan (not only a part of it) is answered from Spark's cache."""
    manager = frame.sparkSession._jsparkSession.sharedState().cacheManager()
    return bool(manager.lookupCachedData(frame._jdf).isDefined())


def test_shuffles_get_two_partitions_per_core_of_the_session(spark: SparkSession, shuffle_setting: None) -> None:
    assert spark.sparkContext.defaultParallelism == 2  # the tests' local[2]

    assert common.size_shuffles(spark) == 4
    assert spark.conf.get(common.SHUFFLE_PARTITIONS) == "4"


def test_inside_cart_events_cached_every_job_reads_the_parsed_events_from_the_cache(spark: SparkSession) -> None:
    events = events_frame(spark, LOG)
    views = analytics.transform(events, catalog_frame(spark, CATALOG))
    assert not reads_the_cache(views["summary"])

    with common.cart_events_cached(events, [analytics.carts, recommendations.baskets]):
        views = analytics.transform(events, catalog_frame(spark, CATALOG))
        assert all(reads_the_cache(frame) for frame in views.values())
        assert is_cached(common.cart_events(events))
        assert is_cached(analytics.carts(common.cart_events(events)))
        assert is_cached(recommendations.baskets(common.cart_events(events)))

    assert not reads_the_cache(analytics.transform(events, catalog_frame(spark, CATALOG))["summary"])
    assert not is_cached(recommendations.baskets(common.cart_events(events)))


def test_views_collected_together_have_the_rows_each_has_alone(spark: SparkSession) -> None:
    views = analytics.transform(events_frame(spark, LOG), catalog_frame(spark, CATALOG))

    together = common.collect_all(views)

    assert together == {name: frame.collect() for name, frame in views.items()}
    assert together["summary"][0].carts_started == 4


def test_an_output_given_as_a_function_is_built_in_its_thread_and_collected_like_the_others(
    spark: SparkSession,
) -> None:
    events = events_frame(spark, LOG)
    views = analytics.transform(events, catalog_frame(spark, CATALOG))

    together = common.collect_all({"summary": views["summary"], "later": lambda: views["funnel_daily"]})

    assert together == {"summary": views["summary"].collect(), "later": views["funnel_daily"].collect()}


def test_a_small_archive_gets_the_quick_jit_compiler_and_a_large_one_a_larger_driver_heap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPARK_CLASS_ARCHIVE", "off")  # with one built, both add it: test_class_archive_options.py
    assert common.sized_for(1_000) == {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}
    assert common.sized_for(100_000) == {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}
    assert common.sized_for(100_001) == {"spark.driver.memory": "4g"}
    assert common.sized_for(5_000_000, driver_memory="8g") == {"spark.driver.memory": "8g"}


def test_the_pipeline_takes_the_driver_heap_from_its_setting(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from analytics.pipeline import session_settings

    monkeypatch.setenv("SPARK_CLASS_ARCHIVE", "off")

    settings.SPARK_DRIVER_MEMORY = None
    assert session_settings(5_000_000) == {"spark.driver.memory": "4g"}
    settings.SPARK_DRIVER_MEMORY = "8g"
    assert session_settings(5_000_000) == {"spark.driver.memory": "8g"}
    assert session_settings(1_000) == {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}


def test_with_an_archive_typed_throughout_only_the_reused_parts_are_cached(spark: SparkSession) -> None:
    events = events_frame(spark, LOG)

    with common.cart_events_cached(events, [analytics.carts, recommendations.baskets], parsed=False):
        assert not is_cached(common.cart_events(events))
        assert is_cached(analytics.carts(common.cart_events(events)))
        assert is_cached(recommendations.baskets(common.cart_events(events)))
        views = analytics.transform(events, catalog_frame(spark, CATALOG))
        assert reads_the_cache(views["funnel_daily"])  # per cart, from the cached part
        assert not reads_the_cache(views["hourly_activity"])  # every event, from the archive

    assert not is_cached(analytics.carts(common.cart_events(events)))
