"""`run_all`: archive -> Spark jobs -> read tables, the whole analytics run (run_spark_jobs, Celery).

1. brings the Parquet archive up to the log's head (analytics.archive);
2. exports the catalog to Parquet beside it, `<archive>/catalog/catalog.parquet`,
   where every executor reads it (the jobs never read the database);
3. runs every job's transform in ONE Spark session over the archive up to its
   checkpoint, which becomes `covers_position`, reading and parsing the archive
   once for all of them, and stops that session, so the cluster's cores are free
   for the next application;
4. loads every view into its read table in one transaction, replace-all per view,
   so a reader sees the previous run or this one, never a mix.

How it scales: the jobs' inputs grow with the log, their outputs do not; they
are aggregates bounded by days, hours, SKUs and SKU pairs (top N per SKU), a few
thousand rows here, so collecting them to the driver and `bulk_create`-ing them
is cheap on SQLite and PostgreSQL alike. The heavy part, the scan of the
archive, is Spark's: point SPARK_MASTER at a cluster and EVENT_ARCHIVE_PATH at
shared storage and steps 1, 2 and 4 do not change. Should an output outgrow the
driver (per-cart or per-session rows), write it with the job's Parquet writer and
COPY it into PostgreSQL instead of collecting it.
"""

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings
from django.db import transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone
from pyspark.sql import SparkSession

from catalog.models import Product
from spark_jobs import common, every_job

from . import models as read_tables
from .archive import DEFAULT_BATCH_SIZE, ArchiveResult, archive, archive_root

logger = logging.getLogger(__name__)

# Each job output and the read table it lands in.
TABLES: dict[str, type[read_tables.SparkView]] = {
    "summary": read_tables.Summary,
    "funnel_daily": read_tables.FunnelDay,
    "revenue_daily": read_tables.RevenueDay,
    "product_activity": read_tables.ProductStats,
    "checkout_time": read_tables.CheckoutTime,
    "hourly_activity": read_tables.HourlyActivity,
    "sessions_daily": read_tables.SessionDay,
    "recommendations": read_tables.Recommendation,
    "abandoned_carts": read_tables.AbandonedCartBatch,
    "abandonment": read_tables.Abandonment,
}

Progress = Callable[[str], None]
# The catalog export's folder inside EVENT_ARCHIVE_PATH (beside `events/`, which the jobs read alone).
CATALOG_DIR = "catalog"


@dataclass(frozen=True, kw_only=True)
class PipelineResult:
    """What a run read and wrote: the archive step, events read, rows per read table, timings."""

    archive: ArchiveResult
    covers_position: int
    events_read: int
    rows: dict[str, int] = field(default_factory=dict)
    computed_at: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


def session_settings(covers: int) -> dict[str, str]:
    """The Spark settings of a run over an archive of `covers` events (`common.sized_for`), with
    the driver's heap from SPARK_DRIVER_MEMORY when it is set."""
    return common.sized_for(covers, driver_memory=settings.SPARK_DRIVER_MEMORY)


def run_all(progress: Progress | None = None, *, spark: SparkSession | None = None) -> PipelineResult:
    say = _reporter(progress)
    timings: dict[str, float] = {}

    began = time.perf_counter()
    archived = archive_step(say)
    timings["archive"] = time.perf_counter() - began

    began = time.perf_counter()
    # The catalog beside the archive: every executor reads it there, never in this driver's temp dir.
    catalog_path = export_catalog(catalog_export_path())
    covers = archived.position
    # Stopped at the end only if this run started it (not the caller's, nor one already running here).
    owned = spark is None and SparkSession.getActiveSession() is None
    session = spark or common.spark_session("cartlog-analytics", settings.SPARK_MASTER, **session_settings(covers))
    try:
        # Every job reads the archive's cart events through common.cart_events: kept in memory once
        # for all of them where some are parsed from JSON; from Parquet by each view where none is.
        events = common.read_archive(session, archive_root(), through=covers)
        events_read = events.count()
        say(f"spark: read {events_read} archived events through position {covers} ({session.sparkContext.master})")
        parsed = not common.archive_is_typed(archive_root(), through=covers)
        with common.cart_events_cached(events, every_job.REUSED, parsed=parsed):
            outputs = every_job.outputs(
                events,
                common.read_catalog(session, catalog_path),
                after_seconds=settings.ABANDONED_CART_AFTER_SECONDS,
                lateness_seconds=settings.ABANDONED_CART_LATENESS_SECONDS,
            )
            collected = {name: [row.asDict() for row in rows] for name, rows in common.collect_all(outputs).items()}
    finally:
        if owned:
            # Frees the cluster's cores and memory for the next application (a standalone master
            # keeps a live session's executors, so the next run would wait for resources forever).
            session.stop()
    timings["spark"] = time.perf_counter() - began

    began = time.perf_counter()
    computed_at = timezone.now()
    rows = load(collected, covers_position=covers, computed_at=computed_at)
    timings["load"] = time.perf_counter() - began
    for name, count in rows.items():
        say(f"load: {count} rows into {TABLES[name]._meta.db_table}")
    return PipelineResult(
        archive=archived, covers_position=covers, events_read=events_read, rows=rows,
        computed_at=computed_at.isoformat(), seconds={k: round(v, 3) for k, v in timings.items()},
    )  # fmt: skip


def archive_step(say: Progress, batch_size: int = DEFAULT_BATCH_SIZE) -> ArchiveResult:
    """Step 1: the archive up to the log's head, said in one line with its result; before it, a line after each
    batch that more follow (a first archive of a long log writes a batch of 50,000 events a second or two)."""

    def so_far(result: ArchiveResult) -> None:
        say(f"archive: {result.written} events written so far, at position {result.position}")

    archived = archive(batch_size, progress=so_far)
    files = f"{archived.files} file{pluralize(archived.files)}"
    say(f"archive: read {archived.read} new events from the log, {files}; position {archived.position}")
    return archived


def catalog_export_path() -> Path:
    """Where the pipeline writes the catalog: beside the archive, on the storage every executor reads."""
    return archive_root() / CATALOG_DIR / "catalog.parquet"


def export_catalog(path: Path) -> Path:
    """The catalog as the jobs read it (sku, name, category, price), one Parquet file, replaced atomically."""
    products = list(Product.objects.values_list("sku", "name", "category", "price"))
    table = pa.table(
        {
            "sku": [p[0] for p in products],
            "name": [p[1] for p in products],
            "category": [p[2] for p in products],
            "price": pa.array([p[3] for p in products], type=pa.decimal128(12, 2)),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    # A reader (an executor of a run still going) sees the old file or the new one, never half of one.
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    pq.write_table(table, partial)
    os.replace(partial, path)
    return path


def load(collected: dict[str, list[dict[str, Any]]], *, covers_position: int, computed_at: datetime) -> dict[str, int]:
    """Replace every read table's rows with this run's, in one transaction."""
    written = {}
    with transaction.atomic():
        for name, model in TABLES.items():
            fields = {f.name for f in model._meta.concrete_fields}
            objects = [
                model(
                    computed_at=computed_at,
                    covers_position=covers_position,
                    **{key: _db_value(value) for key, value in row.items() if key in fields},
                )
                for row in collected.get(name, [])
            ]
            model._default_manager.all().delete()
            model._default_manager.bulk_create(objects, batch_size=1000)
            written[name] = len(objects)
    return written


def _db_value(value: Any) -> Any:
    # PySpark collects timestamps as naive datetimes in the driver's local time zone.
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.astimezone(UTC)
    return value


def _reporter(progress: Progress | None) -> Progress:
    def say(message: str) -> None:
        logger.info(message)
        if progress:
            progress(message)

    return say
