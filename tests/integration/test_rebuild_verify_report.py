"""What `rebuild_projection <view> --verify` prints when rows differ, for a developer to act on.

A row of `product_activity` counts one SKU over every cart. The report used to
print "stream cart-…:" under it with every event of that one cart (the cart of
its last event, which may not even hold that SKU any more), as if that stream
made the row: 341 lines for 42 SKUs, none of them the cause. It now names that
event as what it is, the last that changed the row, and the last line counts
the rows per changed column, the one line to read when thousands differ.
"""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from projections import cart_view, product_activity

from .rebuild_support import drain_consumers, shop

pytestmark = pytest.mark.django_db(transaction=True)


def last_event_of(sku: str) -> tuple[int, str, int, str, str]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT last_position FROM {product_activity.TABLE} WHERE sku = %s", [sku])
        (position,) = cursor.fetchone()
        cursor.execute(
            "SELECT position, type, version, event_id, stream_id FROM eventlog_event WHERE position = %s", [position]
        )
        found = cursor.fetchone()
    return int(found[0]), found[1], int(found[2]), str(found[3]), found[4]


def test_a_count_over_many_carts_names_its_last_event_not_a_stream_behind_it(
    seeded_catalog: None, capsys: pytest.CaptureFixture[str]
) -> None:
    shop(20, seed=5)
    drain_consumers()
    with connection.cursor() as cursor:  # a bug that counted one unit too many for the first SKU
        cursor.execute(f"SELECT MIN(sku) FROM {product_activity.TABLE} WHERE units_sold > 0")
        (sku,) = cursor.fetchone()
        cursor.execute(
            f"UPDATE {product_activity.TABLE} SET units_sold = units_sold + 1 WHERE sku = %s RETURNING units_sold",
            [sku],
        )
        (wrong,) = cursor.fetchone()
    position, type_, version, event_id, stream = last_event_of(sku)

    with pytest.raises(CommandError, match="1 row"):
        call_command("rebuild_projection", "product_activity", "--verify", "--no-progress")

    assert capsys.readouterr().out.splitlines() == [
        f"~ sku={sku} (differs)",
        f"    units_sold: live {wrong} -> rebuilt {wrong - 1}",
        f"    last changed by #{position} v{version} {type_} {event_id} of {stream}",
        "product_activity: 1 row(s) differ (units_sold: 1)",
    ]


def test_the_last_line_counts_the_rows_per_changed_column(
    seeded_catalog: None, capsys: pytest.CaptureFixture[str]
) -> None:
    carts = shop(6, seed=6)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {cart_view.TABLE} SET item_count = item_count + 1")
        cursor.execute(f"UPDATE {cart_view.TABLE} SET owner = 'someone' WHERE cart_id = %s", [carts[0]])
        cursor.execute(f"DELETE FROM {cart_view.TABLE} WHERE cart_id = %s", [carts[1]])

    with pytest.raises(CommandError, match="6 row"):
        call_command("rebuild_projection", "cart_view", "--verify", "--no-progress")

    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "cart_view: 6 row(s) differ (item_count: 5, owner: 1; 1 only in the rebuild)"
    assert f"+ cart_id={carts[1]} (only in the rebuild)" in out
    assert f"    stream cart-{carts[1]}:" in out  # a cart's row is made by its own stream: all of it is shown
