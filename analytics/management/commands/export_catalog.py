"""`python manage.py export_catalog [PATH]`: the catalog Parquet file the standalone Spark jobs read.

    python manage.py export_catalog            # <EVENT_ARCHIVE_PATH>/catalog/catalog.parquet
    spark-submit --master spark://host:7077 spark_jobs/analytics.py \
        --archive $EVENT_ARCHIVE_PATH --catalog $EVENT_ARCHIVE_PATH/catalog/catalog.parquet --out out/

The default path is the one the pipeline itself writes, on the archive's storage,
which every executor reads.
"""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from analytics.pipeline import catalog_export_path, export_catalog


class Command(BaseCommand):
    help = "Write the catalog (sku, name, category, price) as one Parquet file for the spark-submit jobs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default=None, help="default: <archive>/catalog/catalog.parquet")

    def handle(self, *args: Any, **options: Any) -> None:
        path = export_catalog(Path(options["path"]) if options["path"] else catalog_export_path())
        self.stdout.write(f"catalog written to {path}")
