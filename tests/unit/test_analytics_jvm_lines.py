"""Which logger and level a line of the Spark driver's JVM becomes in a worker that logs JSON
(analytics/spark_console.py: jvm_record)."""

import logging

from analytics.spark_console import jvm_record


def test_a_log4j_line_keeps_its_logger_and_level() -> None:
    line = "26/11/28 13:42:01 WARN Utils: Set SPARK_LOCAL_IP if you need to bind to another address"
    assert jvm_record(line) == (
        "spark.Utils",
        logging.WARNING,
        "Set SPARK_LOCAL_IP if you need to bind to another address",
    )
    assert jvm_record("26/11/28 13:42:01 ERROR Executor: Exception in task 0.0") == (
        "spark.Executor",
        logging.ERROR,
        "Exception in task 0.0",
    )


def test_the_jvms_start_up_notes_are_debug_and_other_lines_warnings() -> None:
    assert jvm_record("WARNING: Using incubator modules: jdk.incubator.vector") == (
        "spark.jvm",
        logging.DEBUG,
        "WARNING: Using incubator modules: jdk.incubator.vector",
    )
    assert jvm_record("\tat org.apache.spark.rdd.RDD.iterator(RDD.scala:337)") == (
        "spark.jvm",
        logging.WARNING,
        "\tat org.apache.spark.rdd.RDD.iterator(RDD.scala:337)",
    )


def test_this_processs_own_json_record_passes_as_it_is() -> None:
    assert jvm_record('{"time": "2026-11-28T13:42:01+00:00", "level": "INFO", "logger": "x", "message": "y"}') is None
