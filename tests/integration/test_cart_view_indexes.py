"""`projection_cart_view` carries the indexes its queries use and no others, and keeps them through a rebuild.

Django gives an indexed or unique CharField a second, `varchar_pattern_ops` index on
PostgreSQL (for LIKE); migration 0007 of projections leaves the cart view without those, and
the shadow a rebuild fills copies the live table's indexes, so they must not come back.
"""

import re

import pytest
from django.db import connection, transaction

from carts import services
from carts.handler import Context
from kernel.principal import Principal
from rebuilds.service import rebuild
from tests.log_helpers import wait_until_readable

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

EXPECTED = {
    "projection_cart_view_pkey": "CREATE UNIQUE INDEX projection_cart_view_pkey ON public.projection_cart_view"
    " USING btree (cart_id)",
    "cart_view_owner": "CREATE INDEX cart_view_owner ON public.projection_cart_view USING btree (owner)",
}


def indexes() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'projection_cart_view'")
        return dict(cursor.fetchall())


def test_the_cart_view_has_its_key_and_the_owner_index_and_no_pattern_copies() -> None:
    assert indexes() == EXPECTED


def test_a_rebuild_puts_back_the_same_indexes_under_the_same_names(seeded_catalog: None) -> None:
    context = Context(actor=Principal.parse("user:ada"))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 2)
    wait_until_readable()

    assert rebuild("cart_view").events_done >= 2

    assert indexes() == EXPECTED


def test_a_shoppers_carts_are_found_through_the_owner_index(seeded_catalog: None) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table: let the plan show the index it can use
        cursor.execute(
            "EXPLAIN SELECT cart_id FROM projection_cart_view WHERE owner = %s AND status = 'open'", ["user:ada"]
        )
        plan = "\n".join(line for (line,) in cursor.fetchall())
    assert re.search(r"(Index Scan using|Index Only Scan using|Bitmap Index Scan on) cart_view_owner ", plan), plan
