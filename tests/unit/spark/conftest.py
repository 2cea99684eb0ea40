from tests.spark_session import spark  # noqa: F401  (the one session-scoped SparkSession)
