"""`projection_cart_view` keeps the two indexes its queries use: the primary key and `owner`.

On PostgreSQL, Django gives a CharField that is indexed or unique a second index with
`varchar_pattern_ops`, which serves LIKE 'prefix%' and nothing else. Nobody runs LIKE on a
cart id or an owner, yet every new cart wrote both copies, and a rebuild's shadow table
(`CREATE TABLE ... (LIKE ... INCLUDING ALL)`) filled them too: without them a rebuild of 1M
events ran at 97-102k events/s against 86-93k, its PostgreSQL CPU 4.5-4.7 s against
5.5-5.9 s (docs/benchmarks.md, tenth pass).

`owner` now declares its index in the model's Meta (a plain B-tree, named `cart_view_owner`).
The primary key's copy has no switch in Django, so it is dropped here by the name Django gave
it. An AlterField of `cart_id` would make it again; tests/integration/test_cart_view_indexes.py
says so if it comes back. SQLite never had either copy.
"""

from typing import Any

from django.db import migrations, models

CART_ID_PATTERN_INDEX = "projection_cart_view_cart_id_deb9ec41_like"


def drop_cart_id_pattern_index(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f'DROP INDEX IF EXISTS "{CART_ID_PATTERN_INDEX}"')


def create_cart_id_pattern_index(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX "{CART_ID_PATTERN_INDEX}" ON projection_cart_view (cart_id varchar_pattern_ops)'
        )


class Migration(migrations.Migration):
    dependencies = [("projections", "0006_orderhistory_shipping")]

    operations = [
        migrations.AlterField(model_name="cartview", name="owner", field=models.CharField(max_length=200)),
        migrations.AddIndex(model_name="cartview", index=models.Index(fields=["owner"], name="cart_view_owner")),
        migrations.RunPython(drop_cart_id_pattern_index, create_cart_id_pattern_index),
    ]
