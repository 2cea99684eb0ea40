"""Every job's outputs over one session's archive: what a pipeline run collects, in one place.

`analytics.pipeline.run_all` collects them into the read tables; the class archive's training
run (spark_jobs/class_archive.py) runs the same, so the classes it keeps are the ones a run loads.
"""

from pyspark.sql import DataFrame

from . import abandoned_carts, analytics, common, recommendations

# What the jobs build alike from the parsed cart events, cached once per run.
REUSED = (*analytics.REUSED, *recommendations.REUSED, *abandoned_carts.REUSED)


def outputs(
    events: DataFrame, catalog: DataFrame, *, after_seconds: int, lateness_seconds: int
) -> dict[str, common.Output]:
    """Every job's outputs by name (the names of the pipeline's read tables), for `common.collect_all`.

    A job takes the raw archived events and reads its cart events with `common.cart_events`;
    run this inside `common.cart_events_cached(events, REUSED, ...)`, so that the parts in REUSED
    are built once (and the cart events parsed once, where some are parsed from JSON). The
    recommendations are a function, built by collect_all beside the other views (it ran
    FP-Growth's fit, which started Spark jobs as it was built; the rules now come from the
    pair counts, spark_jobs/recommendations.py). `after_seconds` and `lateness_seconds` are the
    abandoned-cart rule's (spark_jobs/abandoned_carts.py).
    """
    abandoned = abandoned_carts.transform(events, after_seconds=after_seconds, lateness_seconds=lateness_seconds)

    def rules() -> DataFrame:
        return recommendations.transform(events)["recommendations"]

    return {**analytics.transform(events, catalog), "recommendations": rules, **abandoned}
