"""The search index table; on PostgreSQL with a generated, weighted tsvector and its GIN
index, and an index for SKU prefixes ("KIT-00"), so a search can use both."""

from typing import Any

from django.db import migrations, models

DOCUMENT = """
ALTER TABLE catalog_product_search ADD COLUMN document tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, name), 'A')
    || setweight(to_tsvector('english'::regconfig, category || ' ' || sku || ' ' || replace(sku, '-', ' ')), 'B')
    || setweight(to_tsvector('english'::regconfig, description), 'C')
) STORED;
CREATE INDEX catalog_product_search_document ON catalog_product_search USING GIN (document);
CREATE INDEX catalog_product_search_sku_prefix ON catalog_product_search (upper(sku) text_pattern_ops);
"""


def add_document(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DOCUMENT)


def drop_document(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE catalog_product_search DROP COLUMN document")


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="SearchEntry",
            fields=[
                ("sku", models.CharField(max_length=40, primary_key=True, serialize=False)),
                ("name", models.CharField(max_length=200)),
                ("category", models.CharField(max_length=80)),
                ("description", models.TextField(blank=True)),
                ("active", models.BooleanField(default=True)),
            ],
            options={"db_table": "catalog_product_search"},
        ),
        migrations.RunPython(add_document, drop_document),
    ]
