"""PySpark jobs over the Parquet event archive; importable and runnable without Django.

Each job module has pure `transform`-style functions (DataFrames in, DataFrames
out) and a thin `main(argv)` for `spark-submit spark_jobs/<job>.py`.
"""
